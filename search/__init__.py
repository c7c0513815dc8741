"""Full-text search over published articles: one backend per database (search.query),
its index created by this app's migrations, and the search page."""
