"""Running the site: an online backup of the database (``manage.py backup_database``).
Knows nothing of the other apps."""
