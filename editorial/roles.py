"""The three editorial roles: Writers, Editors and Admins."""

PUBLISH_PERMISSION = "news.publish_article"

WRITER = [
    "news.add_article", "news.change_article", "news.view_article", "news.delete_article",
    "news.add_source", "news.change_source", "news.delete_source", "news.view_source",
    "news.add_relatedlink", "news.change_relatedlink", "news.delete_relatedlink",
    "news.view_relatedlink", "editorial.view_factsdue",
    # Bylines: writers choose their articles' authors among the existing ones.
    "news.add_articleauthor", "news.change_articleauthor", "news.delete_articleauthor",
    "news.view_articleauthor", "people.view_author", "people.view_authorlink",
    "images.add_image", "images.change_image", "images.view_image",
    # Corrections are made with an article's save; changing or removing one is for admins.
    "news.view_correction", "editorial.view_sourcetofix",
]  # fmt: skip
EDITOR = [*WRITER, "news.publish_article", "editorial.change_factsdue", "news.view_tag",
          "news.change_tag", "images.delete_image",
          # Editors keep the authors' profiles.
          "people.add_author", "people.change_author", "people.delete_author",
          "people.add_authorlink", "people.change_authorlink", "people.delete_authorlink",
          # Fixing dead sources changes published articles.
          "editorial.change_sourcetofix",
          # The newsletter: its issues composed and sent; subscribers seen, their data
          # changed or erased by admins only.
          "newsletters.add_issue", "newsletters.change_issue", "newsletters.view_issue",
          "newsletters.view_subscriber",
          # The fediverse: replies moderated, actors and instances blocked.
          "fediverse.view_reply", "fediverse.change_reply", "fediverse.delete_reply",
          "fediverse.view_remoteactor", "fediverse.change_remoteactor",
          "fediverse.view_blockeddomain", "fediverse.add_blockeddomain",
          "fediverse.view_follower",
          # The release desk: the projects watched and their sources; the tips are
          # handled on the dashboard.
          "releases.add_watchedproject", "releases.change_watchedproject",
          "releases.delete_watchedproject", "releases.view_watchedproject",
          "releases.add_releasesource", "releases.change_releasesource",
          "releases.delete_releasesource", "releases.view_releasesource", "releases.view_tip",
          # Members' comments: approved, hidden, their authors blocked, a story's
          # conversation closed; the site-wide rules are the admins'.
          "members.view_comment", "members.change_comment", "members.view_member",
          "members.view_moderation", "members.view_closedstory", "members.add_closedstory",
          "members.change_closedstory", "members.delete_closedstory",
          ]  # fmt: skip


def can_publish(user):
    return user.has_perm(PUBLISH_PERMISSION)


def ensure_groups(apps):
    """Create the groups with their permissions, or put them right; safe to repeat.

    Used by a data migration (so every install has them) and after every migrate or
    flush (tests that flush the database would otherwise lose them).
    """
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after migrations; the groups need them now.
    for app_config in apps.get_app_configs():
        # Historical app configs (in a migration) have no models module, which makes
        # create_permissions skip them; the live registry's must be left as they are.
        original = getattr(app_config, "models_module", None)
        app_config.models_module = original or True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = original

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")

    def exists(label, codename):
        # An earlier migration (editorial 0002) runs before later models exist (the
        # authors', the images'); a later one runs this again once they do (editorial
        # 0003), and so does every migrate (editorial.apps).
        try:
            apps.get_model(label, codename.split("_", 1)[1])
        except LookupError:
            return False
        return True

    def permissions(names):
        return [
            Permission.objects.get(content_type__app_label=label, codename=codename)
            for label, codename in (name.split(".") for name in names)
            if exists(label, codename)
        ]

    Group.objects.get_or_create(name="Writers")[0].permissions.set(permissions(WRITER))
    Group.objects.get_or_create(name="Editors")[0].permissions.set(permissions(EDITOR))
    Group.objects.get_or_create(name="Admins")[0].permissions.set(Permission.objects.all())
