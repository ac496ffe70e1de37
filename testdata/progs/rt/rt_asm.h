/* Constants shared by the runtime's assembly and C. */
#ifndef RT_ASM_H
#define RT_ASM_H

#define RT_MAX_HARTS 8
#define RT_STACK_BYTES 0x8000
#define RT_TSTACK_BYTES 0x2000

/* struct rt_frame */
#define RT_F_EPC (32 * 8)
#define RT_F_CAUSE (33 * 8)
#define RT_F_TVAL (34 * 8)
#define RT_F_STATUS (35 * 8)
#define RT_F_VEC (36 * 8)
#define RT_FRAME_BYTES (38 * 8)

/* a7 of the ecall that ends rt_run_in's call in a lower mode */
#define RT_ECALL_RETURN 0x7e7e

#define MSTATUS_SIE (1 << 1)
#define MSTATUS_MIE (1 << 3)
#define MSTATUS_SPIE (1 << 5)
#define MSTATUS_MPIE (1 << 7)
#define MSTATUS_SPP (1 << 8)
#define MSTATUS_MPP (3 << 11)
#define MSTATUS_FS (3 << 13)
#define MSTATUS_FS_INITIAL (1 << 13)
#define MSTATUS_FS_CLEAN (2 << 13)
#define MSTATUS_FS_DIRTY (3 << 13)
#define MSTATUS_MPRV (1 << 17)
#define MSTATUS_SUM (1 << 18)
#define MSTATUS_MXR (1 << 19)
#define MSTATUS_TVM (1 << 20)
#define MSTATUS_TW (1 << 21)
#define MSTATUS_TSR (1 << 22)

#endif
