#!/usr/bin/env python3
"""A stand-in browser for MCP Inspector's CLI (it opens the authorization URL with $BROWSER):
signs in on moot's page as $MOOT_NAME / $MOOT_PASSWORD, allows, and follows the redirect to the
Inspector's own callback, as a person's browser would."""
import html
import http.client
import os
import re
import sys
import urllib.parse
import urllib.request

url = sys.argv[1]
page = urllib.request.urlopen(url).read().decode()
fields = {k: html.unescape(v) for k, v in
          re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}
fields.update(name=os.environ["MOOT_NAME"], password=os.environ["MOOT_PASSWORD"], decision="allow")
where = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(where.netloc)
conn.request("POST", "/oauth/authorize", urllib.parse.urlencode(fields),
             {"Content-Type": "application/x-www-form-urlencoded"})
answer = conn.getresponse()
assert answer.status == 303, answer.status
urllib.request.urlopen(answer.getheader("Location")).read()
