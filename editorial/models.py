from news.models import Article


class FactsDue(Article):
    """Published articles whose facts are due for re-verification (an admin queue)."""

    class Meta:
        proxy = True
        verbose_name = "article with facts due for re-verification"
        verbose_name_plural = "Facts due for re-verification"
