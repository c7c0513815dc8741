"""A real S3 API server on 127.0.0.1 for the tests (moto's server mode, in its own
process), and a bucket of each test's own on it, as django-storages reaches one in
production: by endpoint_url, with keys."""

import subprocess
import sys
import uuid

import boto3

from .mail_server import takes_connections
from .redis_server import free_port
from .waiting import until

# moto takes any keys; boto3 signs every request, so it must have some.
KEYS = {"AWS_ACCESS_KEY_ID": "skillo-test", "AWS_SECRET_ACCESS_KEY": "skillo-test-secret"}
REGION = "us-east-1"


class S3Server:
    def __init__(self):
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        until(lambda: takes_connections(self.port), "the S3 server takes connections", 60)
        self.client = boto3.client(
            "s3", endpoint_url=self.endpoint_url, region_name=REGION,
            aws_access_key_id=KEYS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=KEYS["AWS_SECRET_ACCESS_KEY"],
        )  # fmt: skip

    def new_bucket(self):
        name = f"skillo-media-{uuid.uuid4().hex[:12]}"
        self.client.create_bucket(Bucket=name)
        return name

    def keys(self, bucket, prefix=""):
        """The names of the objects in ``bucket`` under ``prefix``."""
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", ()))

    def environ(self, bucket):
        """The environment a Skillo machine needs to keep its media in ``bucket``."""
        return {
            **KEYS,
            "MEDIA_S3_BUCKET": bucket,
            "MEDIA_S3_ENDPOINT_URL": self.endpoint_url,
            "MEDIA_S3_REGION": REGION,
        }

    def close(self):
        self.process.kill()
        self.process.wait()
