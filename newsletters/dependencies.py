from pagecache.dependencies import Dependency

ARCHIVE = Dependency("newsletter-archive", doc="A page lists or shows sent newsletter issues.")
