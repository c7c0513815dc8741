from django.apps import AppConfig


class MembersConfig(AppConfig):
    name = "members"
    verbose_name = "Members"

    def ready(self):
        from textfiles.signals import demo_loaded

        from .demo import load

        demo_loaded.connect(load, dispatch_uid="members-demo")
