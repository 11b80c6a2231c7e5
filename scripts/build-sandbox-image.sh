#!/usr/bin/env bash
# build-sandbox-image.sh — build co's sandbox image WITHOUT an image registry.
#
# Usage: scripts/build-sandbox-image.sh [--force] [IMAGE]     (IMAGE defaults to co-cli-sandbox)
#
# The image is equivalent to sandbox-image/Dockerfile, but built from Debian packages only:
#   debootstrap --variant=minbase bookworm (plus the sandbox's tools) from the Debian mirror apt
#   is configured with, a user 1000 named "co", apt caches removed, then `docker import`.
# Idempotent: an existing image is left alone unless --force is given. Must run as root.
# Environment: CO_DEBIAN_MIRROR overrides the mirror; CO_DEBIAN_SUITE the suite (bookworm).
set -euo pipefail

PACKAGES=coreutils,git,curl,jq,less,tree,file,zip,unzip,python3,ripgrep,ca-certificates,procps
SUITE=${CO_DEBIAN_SUITE:-bookworm}
IMAGE=co-cli-sandbox
FORCE=0

say() { printf '[build-sandbox-image] %s\n' "$*"; }
die() { printf '[build-sandbox-image] error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,11s/^# \{0,1\}//p' "$0"; }

for arg in "$@"; do
	case $arg in
	--force) FORCE=1 ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $arg (see --help)" ;;
	*) IMAGE=$arg ;;
	esac
done

[[ $EUID -eq 0 ]] || die "must run as root (debootstrap needs it)"
command -v docker >/dev/null || die "docker CLI not found; run scripts/docker-up.sh"
docker info >/dev/null 2>&1 || die "Docker engine not reachable; run scripts/docker-up.sh"

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
	if ((FORCE == 0)); then
		say "image $IMAGE already exists; nothing to do (use --force to rebuild)"
		exit 0
	fi
	say "image $IMAGE exists; rebuilding because of --force"
fi

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	apt-get install -y debootstrap >/dev/null || { apt-get update >/dev/null && apt-get install -y debootstrap >/dev/null; }
fi

# The Debian mirror apt already uses (deb822 "URIs:" or one-line "deb URL"); the first
# URL ending in /debian, i.e. not debian-security nor a third-party repository.
detect_mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		awk '/^[[:space:]]*URIs:/ { for (i = 2; i <= NF; i++) print $i }
		     /^[[:space:]]*deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' "$f"
	done | grep -E '/debian/?$' | head -n1
}
MIRROR=${CO_DEBIAN_MIRROR:-$(detect_mirror || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

ROOTFS=$(mktemp -d /var/tmp/co-sandbox-rootfs.XXXXXX)
chmod 0755 "$ROOTFS" # becomes the image's "/": mktemp's 0700 would lock user 1000 out
cleanup() { rm -rf --one-file-system "$ROOTFS"; }
trap cleanup EXIT

say "debootstrap --variant=minbase $SUITE from $MIRROR into $ROOTFS"
say "  packages: $PACKAGES"
start=$SECONDS
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 ||
	{ tail -n 30 "$ROOTFS.log" >&2; die "debootstrap failed (full log: $ROOTFS.log)"; }
rm -f "$ROOTFS.log"
say "debootstrap done in $((SECONDS - start))s"

say "adding user co (1000:1000), /workspace and /home/co"
grep -q '^co:' "$ROOTFS/etc/group" || echo 'co:x:1000:' >>"$ROOTFS/etc/group"
grep -q '^co:' "$ROOTFS/etc/passwd" || echo 'co:x:1000:1000:co sandbox:/home/co:/bin/bash' >>"$ROOTFS/etc/passwd"
grep -q '^co:' "$ROOTFS/etc/shadow" || echo 'co:!:19000:0:99999:7:::' >>"$ROOTFS/etc/shadow"
mkdir -p "$ROOTFS/workspace" "$ROOTFS/home/co"
chown 1000:1000 "$ROOTFS/workspace" "$ROOTFS/home/co"

say "cleaning apt caches and logs"
rm -rf "$ROOTFS"/var/cache/apt/* "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/* \
	"$ROOTFS"/var/cache/debconf/*-old "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* \
	"$ROOTFS"/usr/share/info/* "$ROOTFS"/tmp/* "$ROOTFS"/root/.cache
# /dev, /proc and /sys are provided by the container runtime.
rm -rf "${ROOTFS:?}"/dev/* "${ROOTFS:?}"/proc/* "${ROOTFS:?}"/sys/*
say "rootfs size: $(du -sh --one-file-system "$ROOTFS" | cut -f1)"

say "docker import -> $IMAGE"
start=$SECONDS
tar --numeric-owner -C "$ROOTFS" -c . | docker import \
	--change 'USER 1000' \
	--change 'WORKDIR /workspace' \
	--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	--change 'ENV LANG=C.UTF-8' \
	--change 'LABEL org.opencontainers.image.title=co-cli-sandbox' \
	--change 'CMD ["sleep","infinity"]' \
	--message "co-cli sandbox: debootstrap $SUITE minbase + $PACKAGES" \
	- "$IMAGE" >/dev/null
say "import done in $((SECONDS - start))s"
docker image ls "$IMAGE"
