"""The one way views and endpoints check roles (STYLE.md habit 3)."""
from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse


def require_perm(perm: str | None = None, *, api: bool = False):
    """Decorator: signed-in user with ``perm`` (or any signed-in user when perm is None).

    Web views redirect anonymous users to the login page; API views answer 401/403 as JSON.
    """

    def deco(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            user = request.user
            if not user.is_authenticated:
                if api:
                    return JsonResponse({"error": "authentication required"}, status=401)
                return redirect_to_login(request.get_full_path())
            if perm is not None and not user.can(perm):
                if api:
                    return JsonResponse({"error": f"your role may not do this ({perm})"}, status=403)
                raise PermissionDenied(f"Your role may not do this ({perm}).")
            if api:
                try:
                    return view(request, *args, **kwargs)
                except Http404 as e:
                    return JsonResponse({"error": str(e) or "not found"}, status=404)
            return view(request, *args, **kwargs)

        wrapper.required_perm = perm  # read by the test that every URL is guarded
        return wrapper

    return deco


def public(view):
    """Mark a view as deliberately open to anonymous users (checked by the URL-guard test)."""
    view.is_public = True
    return view
