"""The newsroom's side of Skillo: the article admin, roles, publishing actions,
revisions and queues."""
