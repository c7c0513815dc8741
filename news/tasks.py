"""The articles' background work."""

from django.tasks import task

from images.cards import ensure_title_card

from .models import Article


@task
def draw_share_card(article_id):
    """Draw the title card link previews show for a published article without a lead
    image (or whose lead image's crops are being made), so that the first crawler to ask
    is sent a file instead of waiting for it to be drawn (news.views.share_card still
    draws one that is missing). Safe to run twice: a drawn card is kept."""
    article = Article.objects.select_related("lead_image", "social_image").get(pk=article_id)
    if article.status != Article.Status.PUBLISHED:
        return None  # unpublished meanwhile: its card is not shown anywhere
    if article.share_picture is not None and article.share_picture.crops_ready:
        return None
    return ensure_title_card(article.title, article.first_topic_name).name
