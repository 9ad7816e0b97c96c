"""Built-in baselines: the offline text-retrieval baseline and the paper's Socratic prompts."""
