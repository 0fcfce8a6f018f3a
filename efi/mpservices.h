/* SPDX-License-Identifier: MIT */
/*
 * EFI_MP_SERVICES_PROTOCOL (UEFI PI specification, volume 2), which gnu-efi
 * 3.0.15 does not declare.  Only what the stage calls is typed precisely;
 * the function table keeps the specification's order.
 */
#ifndef TSCTUI_EFI_MPSERVICES_H
#define TSCTUI_EFI_MPSERVICES_H

#include <efi.h>

#define EFI_MP_SERVICES_PROTOCOL_GUID                                          \
	{                                                                      \
		0x3fdda605, 0xa76e, 0x4f46,                                    \
		{                                                              \
			0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08         \
		}                                                              \
	}

#define PROCESSOR_AS_BSP_BIT 0x00000001
#define PROCESSOR_ENABLED_BIT 0x00000002
#define PROCESSOR_HEALTH_STATUS_BIT 0x00000004

typedef struct {
	UINT32 Package;
	UINT32 Core;
	UINT32 Thread;
} EFI_CPU_PHYSICAL_LOCATION;

typedef struct {
	UINT64 ProcessorId; /* the APIC id */
	UINT32 StatusFlag;
	EFI_CPU_PHYSICAL_LOCATION Location;
	/* Newer PI versions append an extended topology union, filled only
	 * when asked for; room for it, so firmware may write it anyway. */
	UINT8 ExtendedInformation[64];
} EFI_PROCESSOR_INFORMATION;

typedef VOID(EFIAPI *EFI_AP_PROCEDURE)(VOID *ProcedureArgument);

struct _EFI_MP_SERVICES_PROTOCOL;

typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_GET_NUMBER_OF_PROCESSORS)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, UINTN *NumberOfProcessors,
	UINTN *NumberOfEnabledProcessors);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_GET_PROCESSOR_INFO)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, UINTN ProcessorNumber,
	EFI_PROCESSOR_INFORMATION *ProcessorInfoBuffer);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_STARTUP_ALL_APS)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, EFI_AP_PROCEDURE Procedure,
	BOOLEAN SingleThread, EFI_EVENT WaitEvent, UINTN TimeoutInMicroSeconds,
	VOID *ProcedureArgument, UINTN **FailedCpuList);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_STARTUP_THIS_AP)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, EFI_AP_PROCEDURE Procedure,
	UINTN ProcessorNumber, EFI_EVENT WaitEvent, UINTN TimeoutInMicroseconds,
	VOID *ProcedureArgument, BOOLEAN *Finished);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_SWITCH_BSP)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, UINTN ProcessorNumber,
	BOOLEAN EnableOldBSP);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_ENABLEDISABLEAP)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, UINTN ProcessorNumber,
	BOOLEAN EnableAP, UINT32 *HealthFlag);
typedef EFI_STATUS(EFIAPI *EFI_MP_SERVICES_WHOAMI)(
	struct _EFI_MP_SERVICES_PROTOCOL *This, UINTN *ProcessorNumber);

typedef struct _EFI_MP_SERVICES_PROTOCOL {
	EFI_MP_SERVICES_GET_NUMBER_OF_PROCESSORS GetNumberOfProcessors;
	EFI_MP_SERVICES_GET_PROCESSOR_INFO GetProcessorInfo;
	EFI_MP_SERVICES_STARTUP_ALL_APS StartupAllAPs;
	EFI_MP_SERVICES_STARTUP_THIS_AP StartupThisAP;
	EFI_MP_SERVICES_SWITCH_BSP SwitchBSP;
	EFI_MP_SERVICES_ENABLEDISABLEAP EnableDisableAP;
	EFI_MP_SERVICES_WHOAMI WhoAmI;
} EFI_MP_SERVICES_PROTOCOL;

#endif
