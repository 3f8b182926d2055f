# Debian's chromium for the HTML report's browser test (tests/browser). Source this file.
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
echo "$(chromium --version 2>/dev/null || echo 'chromium: not found')"
