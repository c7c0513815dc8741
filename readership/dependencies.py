"""What pages show of the readership figures, named once for the pages and the purge."""

from pagecache.dependencies import Dependency

MOST_READ = Dependency("most-read", doc="A page shows the 'Most read' list.")
