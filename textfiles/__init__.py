"""Plain-text articles and whole-site backups: the Skillo text format (textformat), the
importer of articles and of backups (importer), and what a backup holds besides
articles: the image library (library) and the front page's choices (frontpage).

A feature above news: it reads and writes news, people, images and sources, and none of
them knows of it.
"""
