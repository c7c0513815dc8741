from django.core.cache import cache
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from .context_processors import MAIN_TAGS_KEY
from .models import Article, Source


@receiver([post_save, post_delete], sender=Article)
def article_changed(sender, instance, **kwargs):
    cache.delete(MAIN_TAGS_KEY)


@receiver([post_save, post_delete], sender=Source)
def source_changed(sender, instance, **kwargs):
    Article(pk=instance.article_id).refresh_search_extra()


@receiver(m2m_changed, sender=Article.tags.through)
def tags_changed(sender, instance, action, reverse, **kwargs):
    if action in {"post_add", "post_remove", "post_clear"} and isinstance(instance, Article):
        instance.refresh_search_extra()
        cache.delete(MAIN_TAGS_KEY)
