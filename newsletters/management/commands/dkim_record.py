from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from newsletters.dkim_keys import dns_record, key_source, private_key


class Command(BaseCommand):
    help = (
        "Print the DNS TXT record that publishes the newsletter's DKIM key "
        "(DKIM_DOMAIN, DKIM_SELECTOR, and DKIM_PRIVATE_KEY or DKIM_PRIVATE_KEY_FILE)."
    )

    def handle(self, *args, **options):
        domain = settings.DKIM_DOMAIN
        try:
            pem = private_key()
        except OSError as error:
            raise CommandError(f"{key_source()}: {error.strerror}") from error
        if not (pem and domain):
            raise CommandError(
                "Set DKIM_DOMAIN and DKIM_PRIVATE_KEY (a PEM RSA key, e.g. made with "
                "`openssl genrsa 2048`) or DKIM_PRIVATE_KEY_FILE (a file holding it) first."
            )
        try:
            record = dns_record(pem)
        except Exception as error:
            raise CommandError(f"{key_source()} is not a PEM RSA private key ({error}).") from error
        name = f"{settings.DKIM_SELECTOR}._domainkey.{domain}."
        # TXT strings are at most 255 characters: longer values are split, as DNS
        # servers expect them.
        parts = " ".join(f'"{record[i : i + 255]}"' for i in range(0, len(record), 255))
        self.stdout.write(f"{name} IN TXT ( {parts} )")
