"""Display formats for English (the only language): see stormwater/formats/__init__.py.

Django format characters: M = "Dec" (three letters, no period), j = day without a leading zero,
Y = four-digit year, D = "Wed", g:i A = "3:05 PM" (never "p.m.")."""
DATE_FORMAT = "M j, Y"                      # Dec 2, 2026
SHORT_DATE_FORMAT = "M j, Y"                # the same in tables: one form everywhere
DATETIME_FORMAT = "M j, Y, g:i A"           # Dec 2, 2026, 3:05 PM
SHORT_DATETIME_FORMAT = "M j, Y, g:i A"
TIME_FORMAT = "g:i A"                       # 3:05 PM
YEAR_MONTH_FORMAT = "M Y"                   # Dec 2026
MONTH_DAY_FORMAT = "M j"                    # Dec 2
