#pragma once
// Which rank of a distributed job this process is, read from the environment its launcher
// sets. Checked in this order, because launchers nest: torchrun under srun sets RANK for each
// worker while SLURM_PROCID numbers the torchrun agents, and mpirun inside a Slurm allocation
// inherits the allocation's SLURM_PROCID.
//   torchrun (torch.distributed): RANK, WORLD_SIZE, LOCAL_RANK
//   Open MPI (mpirun):            OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//   MPICH / Intel MPI (PMI):      PMI_RANK, PMI_SIZE, MPI_LOCALRANKID
//   Slurm (srun):                 SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
#include <functional>
#include <optional>
#include <string>

#include "limiter/record.hpp"

namespace limiter::detail {

// The value of an environment variable, nullptr when unset (std::getenv by default).
using EnvironmentLookup = std::function<const char*(const char* name)>;

// The first launcher whose rank and world size are both set and valid; nothing otherwise. A
// launcher whose variables are malformed ("x", a rank outside its world) is passed over.
std::optional<RankInfo> detect_rank(const EnvironmentLookup& lookup = {});

// Whether RANK's process is one its rank started (torch.compile's compile workers, a DataLoader's
// workers: they inherit the rank's variables) rather than the rank itself: PARENT, its parent's
// environment, is the same rank of the same launcher. A torchrun agent, mpirun's daemon and
// slurmstepd do not carry their ranks' variables.
bool started_by_its_rank(const RankInfo& rank, const EnvironmentLookup& parent);

// PID's environment as the kernel shows it (/proc/PID/environ, as the process started: Python's
// os.environ changes never reach it); an environment of nothing where it cannot be read.
EnvironmentLookup environment_of_process(int pid);

}  // namespace limiter::detail
