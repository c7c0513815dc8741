from django.db.models.signals import (
    m2m_changed,
    post_delete,
    post_save,
    pre_delete,
    pre_save,
)
from django.dispatch import receiver

from embeds import queue as embeds
from embeds.models import Embed
from images.models import Image
from people.models import Author, AuthorLink
from sources.models import SourceURL

from . import purge
from .models import (
    Article,
    ArticleAuthor,
    Correction,
    FrontPin,
    RelatedLink,
    RetiredSlug,
    Source,
    Tag,
)
from .rendering import lone_links
from .tasks import draw_share_card


@receiver(post_save, sender=Tag)
def tag_changed(sender, instance, created, **kwargs):
    if not created:
        purge.tag_changed(instance.pk)


@receiver(pre_delete, sender=Tag)
def tag_deleting(sender, instance, **kwargs):
    # Its articles are only known before the delete.
    purge.tag_changed(instance.pk)


@receiver([post_save, post_delete], sender=FrontPin)
def front_pin_changed(sender, instance, **kwargs):
    purge.front_page_changed()


@receiver(post_save, sender=Image)
def image_changed(sender, instance, created, **kwargs):
    # A new image is in no article yet; a deleted one cannot be (PROTECT).
    if not created:
        purge.image_changed(instance)


@receiver([pre_save, pre_delete], sender=Article)
def article_changing(sender, instance, **kwargs):
    purge.before_change(instance.pk)


@receiver([post_save, post_delete], sender=Article)
def article_changed(sender, instance, **kwargs):
    purge.after_change(instance.pk)


@receiver([post_save, post_delete], sender=Embed)
def embed_changed(sender, instance, raw=False, **kwargs):
    if not raw:
        purge.embed_changed(instance.url)


@receiver(pre_delete, sender=Image)
def image_deleting(sender, instance, **kwargs):
    # A link card's picture may be deleted (its card then shows none): SET_NULL sends
    # no signal of its own.
    purge.image_changed(instance)


@receiver(post_save, sender=Article)
def article_saved(sender, instance, raw=False, **kwargs):
    if not raw and instance.status == Article.Status.PUBLISHED:
        # The cards of the links alone on a line, fetched by a worker (embeds.tasks);
        # once the story is scheduled or public: a draft's links are nobody's business,
        # and the linked site would see Skillo's server ask.
        embeds.request(lone_links(instance.body_html))
    if instance.status == Article.Status.PUBLISHED and not (
        instance.lead_image_id or instance.social_image_id
    ):
        # Queued in the save's transaction; the worker reads the topics the save set.
        draw_share_card.enqueue(instance.pk)


@receiver(post_delete, sender=Article)
def article_deleted(sender, instance, **kwargs):
    # Its address (and older ones, whose article is now NULL) answers 410 Gone.
    RetiredSlug.objects.update_or_create(slug=instance.slug, defaults={"article": None})


@receiver([pre_save, pre_delete], sender=Source)
@receiver([pre_save, pre_delete], sender=RelatedLink)
@receiver([pre_save, pre_delete], sender=ArticleAuthor)
def part_changing(sender, instance, **kwargs):
    purge.before_change(instance.article_id)


@receiver([post_save, post_delete], sender=RelatedLink)
@receiver([post_save, post_delete], sender=ArticleAuthor)
def part_changed(sender, instance, **kwargs):
    purge.after_change(instance.article_id)


@receiver([post_save, post_delete], sender=Author)
def author_changed(sender, instance, **kwargs):
    purge.author_changed(instance.pk)


@receiver([post_save, post_delete], sender=AuthorLink)
def author_link_changed(sender, instance, **kwargs):
    # Article pages' JSON-LD lists an author's links (sameAs): they depend on AUTHOR.
    purge.author_changed(instance.author_id)


@receiver([post_save, post_delete], sender=Source)
def source_changed(sender, instance, **kwargs):
    Article(pk=instance.article_id).refresh_search_extra()
    purge.after_change(instance.article_id)


@receiver(m2m_changed, sender=Article.tags.through)
def tags_changed(sender, instance, action, reverse, pk_set, **kwargs):
    article_ids = [instance.pk] if isinstance(instance, Article) else list(pk_set or [])
    if action in {"pre_add", "pre_remove", "pre_clear"}:
        for pk in article_ids:
            purge.before_change(pk)
    if action in {"post_add", "post_remove", "post_clear"}:
        if isinstance(instance, Article):
            instance.refresh_search_extra()
        for pk in article_ids:
            purge.after_change(pk)


@receiver([post_save, post_delete], sender=Correction)
def correction_changed(sender, instance, **kwargs):
    purge.correction_changed(instance.article_id)


@receiver(pre_save, sender=SourceURL)
def source_url_changing(sender, instance, **kwargs):
    # check_sources writes with bulk_update (no signal): only an editor's change of the
    # archived copy, which readers see, gets here.
    stored = SourceURL.objects.filter(pk=instance.pk).values_list("archive_url", flat=True)
    instance._archive_changed = list(stored) != [instance.archive_url]


@receiver(post_save, sender=SourceURL)
def source_url_saved(sender, instance, **kwargs):
    if instance._archive_changed:
        purge.source_url_changed(instance.url)


@receiver(post_delete, sender=SourceURL)
def source_url_deleted(sender, instance, **kwargs):
    purge.source_url_changed(instance.url)
