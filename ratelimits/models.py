from django.db import models


class Window(models.Model):
    """The hits one key has had in one window of time, kept in the database when the
    cache is not Redis (ratelimits.counter)."""

    key = models.CharField(
        max_length=200, help_text="The limit's window length in seconds, then what it counts."
    )
    window = models.BigIntegerField(
        help_text="The window's number: its start in seconds since 1970, over its length."
    )
    ends = models.DateTimeField(db_index=True, help_text="Forgotten once this has passed.")
    hits = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "window"], name="ratelimits_one_row_a_window")
        ]

    def __str__(self):
        return f"{self.key}: {self.hits} until {self.ends:%Y-%m-%d %H:%M:%S}"
