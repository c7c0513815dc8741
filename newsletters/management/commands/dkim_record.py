from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from newsletters.dkim_keys import dns_record


class Command(BaseCommand):
    help = (
        "Print the DNS TXT record that publishes the newsletter's DKIM key "
        "(DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY_FILE)."
    )

    def handle(self, *args, **options):
        path, domain = settings.DKIM_PRIVATE_KEY_FILE, settings.DKIM_DOMAIN
        if not (path and domain):
            raise CommandError(
                "Set DKIM_DOMAIN and DKIM_PRIVATE_KEY_FILE (a PEM RSA key, e.g. made with "
                "`openssl genrsa -out dkim.pem 2048`) first."
            )
        try:
            pem = Path(path).read_bytes()
            record = dns_record(pem)
        except OSError as error:
            raise CommandError(f"DKIM_PRIVATE_KEY_FILE {path}: {error.strerror}") from error
        except Exception as error:
            raise CommandError(
                f"DKIM_PRIVATE_KEY_FILE {path} is not a PEM RSA private key ({error})."
            ) from error
        name = f"{settings.DKIM_SELECTOR}._domainkey.{domain}."
        # TXT strings are at most 255 characters: longer values are split, as DNS
        # servers expect them.
        parts = " ".join(f'"{record[i : i + 255]}"' for i in range(0, len(record), 255))
        self.stdout.write(f"{name} IN TXT ( {parts} )")
