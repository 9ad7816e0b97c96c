"""EgoSchema: five-way questions about a record's windows, with its certificate and blind
filters (offline generators from narrations, or a model)."""
