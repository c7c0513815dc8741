"""Readership figures without tracking anyone (docs/readership.md):

- DailySalt: the day's secret in each visitor's hash, deleted when the day ends, so that
  no one can link two days' visitors or recover an address from a hash;
- Beacon: page views as they arrive, kept only until they are folded (a few minutes);
- DayVisitor: which hashed visitors read an article today, and in which hours, so that
  a reader's second view that day is not a second visitor, nor a second view that hour;
  deleted with the day's salt;
- ArticleHour and SourceHour: the folded figures, per article and hour.
"""

from django.db import models


class DailySalt(models.Model):
    day = models.DateField(primary_key=True)
    value = models.BinaryField(max_length=32)

    def __str__(self):
        return f"salt of {self.day}"


class Beacon(models.Model):
    path = models.CharField(max_length=500)
    referrer_host = models.CharField(max_length=253, blank=True)
    # The channel a link of Skillo's own named (?ref=newsletter): readership.beacons.VIA.
    via = models.CharField(max_length=20, blank=True)
    width = models.CharField(max_length=1, blank=True)
    # Empty for a reader asking not to be tracked (Sec-GPC): counted in totals only.
    visitor = models.CharField(max_length=64, blank=True)
    at = models.DateTimeField()

    def __str__(self):
        return f"{self.path} at {self.at:%Y-%m-%d %H:%M}"


class DayVisitor(models.Model):
    day = models.DateField()
    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="+")
    visitor = models.CharField(max_length=64)
    # The hours in which this visitor's view of the article is counted, a bit each
    # (readership.folding.hour_bit): one view an hour. All of them for a script's.
    hours = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "article", "visitor"], name="one_visitor_a_day")
        ]

    def __str__(self):
        return f"a visitor of {self.article_id} on {self.day}"


class ArticleHour(models.Model):
    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="reads")
    hour = models.DateTimeField()
    views = models.PositiveIntegerField(default=0)
    visitors = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["article", "hour"], name="one_count_an_hour")
        ]
        indexes = [models.Index(fields=["hour", "article"])]

    def __str__(self):
        return f"{self.article_id} at {self.hour:%Y-%m-%d %H:00}: {self.views}"


class SourceHour(models.Model):
    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="+")
    hour = models.DateTimeField()
    # A referrer's host, or the name of a group of them ("Search engines", "Direct").
    source = models.CharField(max_length=253)
    views = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["article", "hour", "source"], name="one_source_count_an_hour"
            )
        ]
        indexes = [models.Index(fields=["hour", "article"])]

    def __str__(self):
        return f"{self.article_id} at {self.hour:%Y-%m-%d %H:00} from {self.source}: {self.views}"


class MostRead(models.Model):
    """The "Most read" list as the site shows it, ranked by the periodic refresh
    (readership.most_read) and purged when it changes; empty when too few readers were
    counted to mean anything."""

    rank = models.PositiveSmallIntegerField(primary_key=True)
    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="+")
    # Ranked by readers (visitors counted once a day per article), not by views.
    readers = models.PositiveIntegerField()
    # The period ranked: the last day, or the last week while a day has too few views.
    days = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["rank"]
        verbose_name_plural = "most read"

    def __str__(self):
        return f"{self.rank}. {self.article_id} ({self.readers} readers in {self.days} days)"


class Summary(models.Model):
    """Figures worked out by the periodic refresh for a page that would otherwise scan
    millions of rows on each look (the dashboard's: readership.figures.summarise)."""

    name = models.CharField(max_length=40, primary_key=True)
    data = models.JSONField()
    at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "summaries"

    def __str__(self):
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M}"


class FoldedBatch(models.Model):
    """A batch of beacons from Redis whose counts are committed, recorded in the same
    transaction: should its delete from Redis fail, the next fold finds its name here and
    does not count it again. Kept a day (readership.folding)."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"batch {self.name} folded at {self.at:%Y-%m-%d %H:%M}"
