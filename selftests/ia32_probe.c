// SPDX-License-Identifier: GPL-2.0
/*
 * Installed as m32/ia32_probe beside the i386 programs: prints "ia32" when
 * the kernel executes i386 programs (IA32 emulation). m32_wrapper.sh asks
 * it before running one, so that on a kernel without IA32 emulation the
 * i386 programs skip with that reason instead of failing to start.
 */
#include <unistd.h>

int main(void)
{
	return write(STDOUT_FILENO, "ia32\n", 5) == 5 ? 0 : 1;
}
