"""The recipes: one module each, declaring ``RECIPE`` (`xlebench.tasks.helpers.registry`). What
they share (context, items, wording, filters, readers, offline generators) is in
`xlebench.tasks.helpers`."""
