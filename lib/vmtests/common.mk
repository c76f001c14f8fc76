# SPDX-License-Identifier: MIT
#
# What the VM test programs of vmtests/ and vmtests-inspect/ build with:
# each is one .c file linked with the library's static archive. The
# including Makefile sets PROGS (and may add rules of its own).

O		?= build
LIB_O		?= ../build
CC		?= cc
PKG_CONFIG	?= pkg-config
CFLAGS		?= -O2 -g

PKGS		:= libprotobuf-c libdrm libkmod libzstd
WARN_FLAGS	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ALL_CFLAGS	= -std=gnu11 $(WARN_FLAGS) -D_GNU_SOURCE -pthread -I../include -I../../uapi \
		  $(shell $(PKG_CONFIG) --cflags $(PKGS)) $(CFLAGS)
LDLIBS		= $(LIB_O)/libneuronprof.a $(shell $(PKG_CONFIG) --libs $(PKGS)) -pthread

.DELETE_ON_ERROR:

$(O)/%: %.c $(LIB_O)/libneuronprof.a $(wildcard ../include/neuronprof/*.h) ../tests/harness.h
	@mkdir -p $(O)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)
