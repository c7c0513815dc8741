from pagecache.dependencies import Dependency

PROJECT = Dependency("release-project", doc="A page shows this watched project (its public page).")
PROJECTS = Dependency(
    "release-projects",
    doc="A page lists or links the watched projects' public pages (/releases/, topics).",
)
