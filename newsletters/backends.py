"""The site's SMTP backend (the default MAILERS backend): Django's, with every mail given
a Message-ID on the site's domain and, when a key is set, the DKIM signature the
newsletter's issues carry (newsletters.compose.sign). Confirmations, welcome mails,
sign-in links and the newsroom's workflow mail would otherwise go out unsigned, their
Message-ID ending in this machine's name (often @localhost)."""

import email.policy
import smtplib
from email.utils import make_msgid

from django.core.mail.backends import smtp

from .compose import sign, site_host


class MailServerUnreachable(OSError):
    """The SMTP server could not be reached: what the failing task's log line names."""


class EmailBackend(smtp.EmailBackend):
    def open(self):
        try:
            return super().open()
        except OSError as error:
            # Not a bare ConnectionRefusedError in the worker's log: say what and where.
            raise MailServerUnreachable(
                f"the SMTP server {self.host}:{self.port} could not be reached ({error})"
            ) from error

    def _send(self, email_message):
        # Django's own _send (django.core.mail.backends.smtp), the bytes signed.
        if not email_message.recipients():
            return False
        email_message.extra_headers.setdefault("Message-ID", make_msgid(domain=site_host()))
        from_email = self.prep_address(email_message.from_email)
        recipients = [self.prep_address(address) for address in email_message.recipients()]
        message = email_message.message(policy=email.policy.SMTP)
        try:
            self.connection.sendmail(from_email, recipients, sign(message.as_bytes()))
        except smtplib.SMTPException:
            if not self.fail_silently:
                raise
            return False
        return True
