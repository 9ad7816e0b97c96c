"""Life-log simulation: chunk sampling, matching with the relaxation ladder, reflection."""
