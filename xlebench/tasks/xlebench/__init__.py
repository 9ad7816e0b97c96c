"""X-LeBench's eight subtasks (the paper's Table 4): retrieval of objects, people and
moments, single-, multi-video and holistic summaries, action counting, summary ordering."""
