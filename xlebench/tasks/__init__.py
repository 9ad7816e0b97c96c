"""The task compiler: X-LeBench's 8 subtasks built from a life log's timeline + annotations."""
