#!/bin/sh
# The Debian programs the suite drives, beside Node and git: Chromium (the dashboard's browser
# tests), tmux (the terminal views), redis-server (remote workers), bubblewrap and socat (the
# sandbox and its network gate). Those missing are installed with apt-get when this runs as root
# on Debian, saying so; otherwise it names them and fails, before any test runs.
set -eu
missing=""
for program in chromium:chromium tmux:tmux redis-server:redis-server bwrap:bubblewrap socat:socat; do
	command -v "${program%%:*}" >/dev/null 2>&1 || missing="$missing ${program#*:}"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "the tests need these Debian packages, which are not installed:$missing" >&2
	echo "install them (apt-get install$missing) and run the tests again" >&2
	exit 1
fi
echo "installing the Debian packages the tests need:$missing" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
echo "installed:$missing" >&2
