#!/usr/bin/env bash
# The browser tests of `cardc serve` (tests/test_serve_browser.py) drive
# Debian's chromium package. Install it when it is missing and we can (root,
# as in CI); otherwise say in one line how. Never downloads a browser build.
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the browser tests (apt-get install -y chromium)..." >&2
  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
    exit 0
  fi
  echo "could not install chromium: the browser tests will fail in CI and be skipped elsewhere" >&2
  exit 0
fi
echo "the browser tests need Chromium: run 'sudo apt-get install -y chromium' (they are skipped until then)" >&2
