"""What the recipes share: the registry and the context a recipe builds from, the item contract,
the narration and SRL readers, wording, filters, leak audits and the offline generators. The
recipes themselves are the modules of `xlebench.tasks`, one each."""
