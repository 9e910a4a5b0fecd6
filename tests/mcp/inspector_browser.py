#!/usr/bin/env python3
"""A stand-in browser for MCP Inspector's CLI (it opens the authorization URL with $BROWSER):
signs in on moot's page as $MOOT_NAME / $MOOT_PASSWORD, allows, and follows the redirect to the
Inspector's own callback, as a person's browser would."""
import html
import http.client
import os
import re
import sys
import traceback
import urllib.error
import urllib.parse
import urllib.request


def sign_in_and_allow(url):
    page = urllib.request.urlopen(url, timeout=20).read().decode()
    fields = {k: html.unescape(v) for k, v in
              re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}
    fields.update(name=os.environ["MOOT_NAME"], password=os.environ["MOOT_PASSWORD"],
                  decision="allow")
    where = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(where.netloc, timeout=20)
    conn.request("POST", "/oauth/authorize", urllib.parse.urlencode(fields),
                 {"Content-Type": "application/x-www-form-urlencoded"})
    answer = conn.getresponse()
    assert answer.status == 303, answer.status
    urllib.request.urlopen(answer.getheader("Location"), timeout=20).read()


# The Inspector does not show what its browser printed: a failure goes to $MOOT_BROWSER_LOG,
# for the test to show. Each step waits at most 20 s, so that it has written it before the test
# gives up on the Inspector.
try:
    sign_in_and_allow(sys.argv[1])
except BaseException as e:
    with open(os.environ["MOOT_BROWSER_LOG"], "a") as log:
        log.write(traceback.format_exc())
        if isinstance(e, urllib.error.HTTPError):
            log.write(e.read().decode(errors="replace") + "\n")
    raise
