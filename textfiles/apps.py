from django.apps import AppConfig


class TextfilesConfig(AppConfig):
    name = "textfiles"
    verbose_name = "Plain-text articles and site backups"

    def ready(self):
        from .records import BackupPart

        # What export_site writes in its own formats (articles/, tags.txt, gone.txt,
        # authors.txt, front.json, sources.txt, embeds.txt, images/, live/), and what it
        # leaves of the apps below it.
        BackupPart(
            carries=[
                "news.Article", "news.Source", "news.RelatedLink", "news.Tag",
                "news.TaggedArticle", "news.ArticleAuthor", "news.Correction",
                "news.RetiredSlug", "news.FrontPin", "people.Author", "people.AuthorLink",
                "images.Image", "embeds.Embed", "sources.SourceURL", "live.LiveCoverage",
                "live.Entry",
            ],
            leaves={
                "news.SiteIdentity": "migrate records it from SITE_URL and FEED_ID_AUTHORITY: "
                "give the new site the old one's",
                "live.RemovedEntry": "it only tells pages open then to drop an entry",
                "pagecache.Release": "the running code's, recorded at each start",
                "background.PeriodicRun": "the worker's timetable, started afresh",
                "background.WorkerBeat": "the running workers' heartbeats",
                "outbound.Host": "other servers' recent failures, learnt afresh",
                "ratelimits.Window": "counts of the last minutes",
            },
        )  # fmt: skip
