/* SPDX-License-Identifier: MIT */
/*
 * nrt/nrt_status.h for libnrtprof, the Neuron runtime compatibility layer of
 * neuronprof: the NRT_STATUS codes of the public runtime headers, with the
 * same names and values, so code written against them builds unchanged.
 * Documentation/inspect.rst ("nrt compatibility") says which errno of
 * libneuronprof becomes which code.
 */
#ifndef NRTPROF_NRT_STATUS_H
#define NRTPROF_NRT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	NRT_SUCCESS = 0,
	NRT_FAILURE = 1,			/* non-specific failure */
	NRT_INVALID = 2,			/* invalid argument or state */
	NRT_INVALID_HANDLE = 3,			/* invalid handle */
	NRT_RESOURCE = 4,			/* out of memory or another resource */
	NRT_TIMEOUT = 5,			/* an operation timed out */
	NRT_HW_ERROR = 6,			/* the device failed or is gone */
	NRT_QUEUE_FULL = 7,
	NRT_LOAD_NOT_ENOUGH_NC = 9,		/* no NeuronCore for the load */
	NRT_UNSUPPORTED_NEFF_VERSION = 10,
	NRT_UNINITIALIZED = 13,			/* nrt_init() was not called */
	NRT_CLOSED = 14,			/* the runtime is closing */
	NRT_EXEC_BAD_INPUT = 1002,
	NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003,
	NRT_EXEC_COMPLETED_WITH_ERR = 1004,	/* the execution raised an error */
	NRT_EXEC_NC_BUSY = 1005,
	NRT_COLL_PENDING = 1100,
	NRT_EXEC_SW_NQ_OVERFLOW = 1204,		/* a software notification queue overflowed */
} NRT_STATUS;

#ifdef __cplusplus
}
#endif

#endif /* NRTPROF_NRT_STATUS_H */
