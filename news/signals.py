from django.core.cache import cache
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.dispatch import receiver
from taggit.models import Tag

from .context_processors import MAIN_TAGS_KEY
from .models import Article, RetiredSlug, Source
from .slugs import slug_from_title


@receiver(pre_save, sender=Tag)
def ascii_tag_slug(sender, instance, **kwargs):
    """Give new tags ASCII slugs like articles' ("Ünïcode" -> "unicode").

    taggit keeps Unicode and can produce an empty slug (an emoji-only tag), which the
    /tags/<slug>/ URLs cannot hold.
    """
    if not instance._state.adding:
        return
    base = slug_from_title(instance.name, fallback="tag")
    taken = set(Tag.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    instance.slug = slug


@receiver([post_save, post_delete], sender=Tag)
def tag_changed(sender, instance, **kwargs):
    cache.delete(MAIN_TAGS_KEY)


@receiver([post_save, post_delete], sender=Article)
def article_changed(sender, instance, **kwargs):
    cache.delete(MAIN_TAGS_KEY)


@receiver(post_delete, sender=Article)
def article_deleted(sender, instance, **kwargs):
    # Its address (and older ones, whose article is now NULL) answers 410 Gone.
    RetiredSlug.objects.update_or_create(slug=instance.slug, defaults={"article": None})


@receiver([post_save, post_delete], sender=Source)
def source_changed(sender, instance, **kwargs):
    Article(pk=instance.article_id).refresh_search_extra()


@receiver(m2m_changed, sender=Article.tags.through)
def tags_changed(sender, instance, action, reverse, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"} and isinstance(instance, Article):
        instance.refresh_search_extra()
        cache.delete(MAIN_TAGS_KEY)
