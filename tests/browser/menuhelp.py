"""Helpers the browser tests share (not fixtures)."""


def menu(page, label: str):
    """Open ``label`` from the main menu (issue 16: the menu is grouped, and on a phone it is a closed disclosure;
    the same words may also be a breadcrumb on the page): opens the menu when it is closed, clicks the menu's link."""
    nav = page.get_by_role("navigation", name="Main")
    if not nav.is_visible():
        page.locator("details#menu > summary").click()
    nav.get_by_role("link", name=label, exact=True).click()
