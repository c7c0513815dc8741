"""The demo's members (load_demo, through textfiles' demo_loaded signal): two readers,
one of them a newsletter subscriber with a saved story, and a conversation under the
newest story (two comments, a reply, one comment waiting for a moderator). The demo has
no way to sign them in but a sign-in link, which `make run` prints on the console."""

from datetime import timedelta

from django.utils import timezone

from news.models import Article
from newsletters.models import Subscriber

from . import comments
from .models import Comment, CommentSettings, Member, SavedStory

READERS = [("rosa@demo.example", "Rosa Reader"), ("grace.h@demo.example", "Grace H.")]
CONVERSATION = [
    (0, None, "Good summary. The release notes list the breaking changes at "
              "https://example.org/notes if you are upgrading."),
    (1, 0, "Thanks: the migration guide there saved me an afternoon."),
    (1, None, "Does anyone know whether the old API is deprecated or removed?"),
]  # fmt: skip
HELD = "First comment here: a question the moderators will see before anyone else."


def load(sender=None, **kwargs):
    """Add the demo's members and comments, once."""
    if Member.objects.exists():
        return 0
    story = Article.objects.published().order_by("-published_at", "-pk").first()
    if story is None:
        return 0
    CommentSettings.objects.get_or_create()
    joined = timezone.now() - timedelta(days=30)
    members = [
        Member.objects.create(email=email, name=name, created_at=joined) for email, name in READERS
    ]
    Subscriber.objects.get_or_create(
        email=members[0].email,
        defaults={"state": Subscriber.State.ACTIVE, "confirmed_at": joined, "source": "demo"},
    )
    SavedStory.objects.create(member=members[0], article=story)
    made = []
    for position, (who, parent, text) in enumerate(CONVERSATION):
        made.append(
            Comment.objects.create(
                article=story,
                member=members[who],
                parent=made[parent] if parent is not None else None,
                body=text,
                body_html=comments.render(text),
                state=Comment.State.APPROVED,
                created_at=timezone.now() - timedelta(hours=len(CONVERSATION) - position),
            )
        )
    newcomer = Member.objects.create(email="newcomer@demo.example", name="", created_at=joined)
    Comment.objects.create(
        article=story, member=newcomer, body=HELD, body_html=comments.render(HELD)
    )
    return len(made) + 1
