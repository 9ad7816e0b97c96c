"""The recipes, by family, and what several families share, by role.

Families — each a package holding its recipes (one module each, declaring ``RECIPE``) and
what only it uses: `xlebench.tasks.xlebench` (X-LeBench's eight subtasks),
`xlebench.tasks.egoschema`, `xlebench.tasks.neptune`, `xlebench.tasks.vidsitu`,
`xlebench.tasks.multihop`. Roles — what several families share: `xlebench.tasks.recipe` (the
declaration, its registry and context, the item contract), `xlebench.tasks.language`
(wording, actions and events read from narrations, aggregation), `xlebench.tasks.choices`
(multiple choice), `xlebench.tasks.screening` (filters, leak audits and their settlement).
"""
