"""Multiple choice as several families build it: options shuffled uniformly, the question
and answer layout, and decoys from other life logs' records."""
