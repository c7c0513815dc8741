from django.db import models


class Host(models.Model):
    """A remote host Skillo's own requests go to, and what they cost it lately
    (outbound.budget). One row every process and machine reads and writes."""

    name = models.CharField(max_length=255, unique=True)
    # The minute (Unix time // 60) that ``seconds`` counts, and the seconds spent on the
    # host in it, in-flight requests counted at their timeout.
    window = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0)
    # Requests in a row that got no answer (a timeout, a refused or dropped connection).
    failures = models.PositiveIntegerField(default=0)
    backed_off_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "remote host"

    def __str__(self):
        return self.name
