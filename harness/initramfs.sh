#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for one profile: busybox, /init, udpbench, the
# installed kselftests of the series tree, the profile's modules and the
# harness's own modules.  Output: build/initramfs/<key>.cpio.gz, the
# profile's name or <profile>@V under BASE=V (lib.sh, profile_key)
set -eu
STAGE=initramfs
. "$(dirname "$0")/lib.sh"

profile=${1:?usage: initramfs.sh PROFILE}
key=$(profile_key "$profile")
out=$(profile_out "$profile")
[ -f "$out/arch/x86/boot/bzImage" ] || die "profile $key is not built"
root=$BUILD/initramfs/$key
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,etc}

cp /bin/busybox "$root/bin/busybox"
install -m 755 "$REPO/harness/guest/init" "$root/init"
install -m 755 "$REPO/harness/guest/timeout" "$root/usr/bin/timeout"
install -m 755 "$REPO/harness/guest/workload" "$root/usr/bin/workload"
# make bench's network case: a static program, as the guest has no libc.
# Built once, not per profile: it does not depend on the kernel.
mkdir -p "$BUILD/guest"
if [ ! "$BUILD/guest/udpbench" -nt "$REPO/harness/guest/udpbench.c" ]; then
	gcc -static -O2 -Wall -o "$BUILD/guest/udpbench" "$REPO/harness/guest/udpbench.c" ||
		die "harness/guest/udpbench.c does not build"
fi
install -m 755 "$BUILD/guest/udpbench" "$root/usr/bin/udpbench"

# Kernel modules of this profile, plus ours built against it.
cp -a "$out/modroot/lib/modules" "$root/lib/"
kver=$(cat "$out/include/config/kernel.release")
mdir=$BUILD/modules/$key
build_module() {
	local name=$1
	make -s -C "$out" M="$mdir/$name" CC="$(kcc)" modules >>"$LOGS/modules-$key.log" 2>&1 ||
		die "module $name does not build for $key (log: $LOGS/modules-$key.log)"
	mkdir -p "$root/lib/modules/$kver/extra"
	cp "$mdir/$name"/*.ko "$root/lib/modules/$kver/extra/"
}
mkdir -p "$mdir"
for m in "$REPO"/harness/modules/*/; do
	name=$(basename "$m")
	rm -rf "$mdir/$name"
	cp -a "$m" "$mdir/$name"
	build_module "$name"
done
# The series' test modules use only the public slab API: build the same
# source for every kernel, pristine ones included, so that the kselftests
# that load them compare like with like.
for f in "$REPO"/lib/test_slab*.c; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .c)
	rm -rf "$mdir/$name"
	mkdir -p "$mdir/$name"
	cp "$f" "$mdir/$name/"
	echo "obj-m += $name.o" >"$mdir/$name/Kbuild"
	build_module "$name"
done
/sbin/depmod -b "$root" "$kver"

# LKDTM (configs/lkdtm.config): the guest's run_lkdtm reads which cases
# to run and what each must print from the kernel's own list, as
# upstream's tools/testing/selftests/lkdtm/run.sh does.
if find "$root/lib/modules" -name 'lkdtm.ko*' | grep -q .; then
	tests=$out/source/tools/testing/selftests/lkdtm/tests.txt
	[ -f "$tests" ] || die "$key has lkdtm.ko but its tree has no $tests"
	install -D -m 644 "$tests" "$root/usr/share/lkdtm/tests.txt"
fi

# kselftests, installed the kselftest way from the series tree of the
# run's base (kselftest.sh), copied under its lock.
ks=$(kselftest_install)
if [ -x "$ks/run_kselftest.sh" ]; then
	flock -s "$BUILD/kselftest/lock$(base_suffix)" cp -a "$ks" "$root/kselftest"
	# Shared libraries of dynamically linked test programs.
	find "$root/kselftest" -type f -perm -u+x | while read -r f; do
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' | while read -r lib; do
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
	done
fi

# Reproducible: the same files give the same bytes (fixed times, sorted
# names, no inode numbers), so that a boot under -icount does the same
# work every time, down to the instruction.
find "$root" -exec touch -h -d @1670716800 {} +
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible | gzip -1 -n) \
	>"$BUILD/initramfs/$key.cpio.gz"
log "$key: $(du -h "$BUILD/initramfs/$key.cpio.gz" | cut -f1) initramfs"
