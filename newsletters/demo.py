"""The demo's newsletter (load_demo, through textfiles' demo_loaded): each published demo
story went out by e-mail when it was published, as a newsroom's archive would show, and
nothing is mailed today."""

from news.models import Article

from .models import Issue


def load(sender=None, **kwargs):
    Issue.objects.bulk_create(
        Issue(
            kind=Issue.Kind.STORY, state=Issue.State.SENT, article=article,
            subject=article.title, due_at=article.published_at,
            created_at=article.published_at, sent_at=article.published_at,
        )
        for article in Article.objects.published().filter(email_subscribers=True)
    )  # fmt: skip
