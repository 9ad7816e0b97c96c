"""The words several families share: the X-LeBench wording of queries and answers, actions
read from narrations, events with their times, and the summary aggregator."""
