from django.db.models import QuerySet

from .models import NoticeSent


def notices_for_case(case) -> QuerySet[NoticeSent]:
    return NoticeSent.objects.filter(case=case)
