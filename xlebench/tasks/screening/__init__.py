"""What keeps items honest: the filters (certificates, option-only rules, the blind panel,
AFLite, raters, model filters), the leak audits and their settlement, shape statistics."""
