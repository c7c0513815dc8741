from django.db.models.signals import (
    m2m_changed,
    post_delete,
    post_save,
    pre_delete,
    pre_save,
)
from django.dispatch import receiver

from images.models import Image
from people.models import Author, AuthorLink
from sources.models import SourceURL

from . import cards, purge
from .models import (
    Article,
    ArticleAuthor,
    Correction,
    FrontPin,
    RelatedLink,
    RetiredSlug,
    Source,
    Tag,
    TaggedArticle,
)


def tagged_with(tag_pk):
    return TaggedArticle.objects.filter(tag=tag_pk).values("content_object")


def citing(url):
    """The articles whose kept pages (news.kept) show ``url``'s archived copy."""
    return Source.objects.filter(url=url).values("article")


@receiver([post_save, post_delete], sender=Tag)
def tag_changed(sender, instance, **kwargs):
    if not kwargs.get("created"):
        cards.forget(tagged_with(instance.pk))
        purge.tag_changed(instance.pk)


@receiver(pre_delete, sender=Tag)
def tag_deleting(sender, instance, **kwargs):
    # Its articles are only known before the delete.
    cards.forget(tagged_with(instance.pk))
    purge.tag_changed(instance.pk)


@receiver([post_save, post_delete], sender=FrontPin)
def front_pin_changed(sender, instance, **kwargs):
    purge.front_page_changed()


@receiver(post_save, sender=Image)
def image_changed(sender, instance, created, **kwargs):
    # A new image is in no article yet; a deleted one cannot be (PROTECT).
    if not created:
        # Its words and crops in the kept pages (news.kept) showing it, or their authors'.
        cards.forget(Article.objects.showing_image(instance).values("pk"))
        cards.forget(ArticleAuthor.objects.filter(author__photo=instance).values("article"))
        purge.image_changed(instance)


@receiver([pre_save, pre_delete], sender=Article)
def article_changing(sender, instance, **kwargs):
    purge.before_change(instance.pk)


@receiver([post_save, post_delete], sender=Article)
def article_changed(sender, instance, **kwargs):
    if kwargs.get("created"):
        # Its card row from the start, so that its first reader keeps its page (news.kept).
        cards.make_rows([instance.pk])
    cards.forget([instance.pk])
    purge.after_change(instance.pk)


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
    if sender is ArticleAuthor:  # a card shows the byline, not the related links
        cards.forget([instance.article_id])
    purge.after_change(instance.article_id)


@receiver([post_save, post_delete], sender=Author)
def author_changed(sender, instance, **kwargs):
    # Their name (and the address it links to) in every card of theirs.
    cards.forget(ArticleAuthor.objects.filter(author=instance.pk).values("article"))
    purge.author_changed(instance.pk)


@receiver([post_save, post_delete], sender=AuthorLink)
def author_link_changed(sender, instance, **kwargs):
    # The kept pages' JSON-LD lists an author's links (sameAs).
    cards.forget(ArticleAuthor.objects.filter(author=instance.author_id).values("article"))
    purge.author_changed(instance.author_id)


@receiver([post_save, post_delete], sender=Source)
def source_changed(sender, instance, **kwargs):
    cards.forget([instance.article_id])  # its kept page lists it (news.kept)
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
        cards.forget(article_ids)
        for pk in article_ids:
            purge.after_change(pk)


@receiver([post_save, post_delete], sender=Correction)
def correction_changed(sender, instance, **kwargs):
    cards.forget([instance.article_id])  # its kept page shows it (news.kept)
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
        cards.forget(citing(instance.url))
        purge.source_url_changed(instance.url)


@receiver(post_delete, sender=SourceURL)
def source_url_deleted(sender, instance, **kwargs):
    cards.forget(citing(instance.url))
    purge.source_url_changed(instance.url)
