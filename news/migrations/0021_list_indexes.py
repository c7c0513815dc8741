"""Public lists read from indexes alone, whatever SQLite's statistics say.

Every list orders by publication time, then id. With the index on status ending at
publication time, SQLite's planner (given a big site's statistics) walked the index on
publication time alone and read each article's row for its status: a topic page's query
took 1.2 ms at 100,000 articles; with the whole order in the index, 0.08 ms.

Archives, timelines and neighbours read public articles in event-date order. Their index
on (event_date, published_at) lost to the index on status whenever SQLite had no
statistics or a sample's: an archive month then read every published article's row,
315 ms at 100,000 articles. An index on (status, event_date, published_at, id) has the
same equality on status and a narrower range, and holds every column the lists read:
0.09 ms. PostgreSQL, too, no longer sorts ties.

The planner's statistics are gathered again after migrate (news.apps, maintenance.
statistics): the new indexes have none.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("news", "0020_sqlite_big_columns_last")]

    operations = [
        migrations.RemoveIndex(model_name="article", name="article_status_published"),
        migrations.AddIndex(
            model_name="article",
            index=models.Index(
                fields=["status", "-published_at", "-id"], name="article_status_published"
            ),
        ),
        migrations.RemoveIndex(model_name="article", name="article_event_date"),
        migrations.AddIndex(
            model_name="article",
            index=models.Index(
                fields=["status", "event_date", "published_at", "id"], name="article_status_event"
            ),
        ),
    ]
