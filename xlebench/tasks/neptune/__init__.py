"""Neptune: short-answer questions per capability with decoys, their multiple-choice view,
and multiple choice from the summary subtasks with Neptune's decoys."""
