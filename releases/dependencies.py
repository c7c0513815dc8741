from pagecache.dependencies import Dependency

PROJECT = Dependency("release-project", doc="A page shows this watched project (its public page).")
