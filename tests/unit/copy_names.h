/*
 * The checked-in list of tests/unit/test_copy_names.c: each node-level
 * allreduce entry of the families with a single-copy form, by its listed
 * name and canonical name as they were when single copy was a separate
 * name ("shm_dissemination_cma") or a node mode ("node=cma"), with the
 * fingerprint of its schedules made then (unit_copy_names --print).  The
 * hierarchical rows with x=rd or x=rsa carry the fingerprints of the
 * leaders' exchange over member maps (src/blocks/allreduce_members.c),
 * whose last copy shares the last reduction's round: one round fewer, the
 * same messages and reductions.
 */
#ifndef TC_TEST_COPY_NAMES_H
#define TC_TEST_COPY_NAMES_H

#include <stdint.h>

typedef struct copy_name_row {
    const char *name, *canonical;
    uint64_t fingerprint;
} copy_name_row;

static const copy_name_row copy_names[] = {
    { "shm_rb2_1s", "shm_reduce_bcast:fanin=2,bcast=1stage,copy=in", 0x3193e5bd8c3221a9ull },
    { "shm_rb2_2s", "shm_reduce_bcast:fanin=2,bcast=2stage,copy=in", 0x32c57105f705c21dull },
    { "shm_rb4_1s", "shm_reduce_bcast:fanin=4,bcast=1stage,copy=in", 0xc61b1ddc2b26254eull },
    { "shm_rb4_2s", "shm_reduce_bcast:fanin=4,bcast=2stage,copy=in", 0xc102d64e67e15a36ull },
    { "shm_rb8_1s", "shm_reduce_bcast:fanin=8,bcast=1stage,copy=in", 0xfce11cda6ccd611dull },
    { "shm_rb8_2s", "shm_reduce_bcast:fanin=8,bcast=2stage,copy=in", 0x285361c2e91c112dull },
    { "shm_rb2_1s_cma", "shm_reduce_bcast:fanin=2,bcast=1stage,copy=cma", 0x63c962d57409810dull },
    { "shm_rb2_2s_cma", "shm_reduce_bcast:fanin=2,bcast=2stage,copy=cma", 0x786e43feb3084599ull },
    { "shm_rb4_1s_cma", "shm_reduce_bcast:fanin=4,bcast=1stage,copy=cma", 0xc3f5ba6ceffb9acaull },
    { "shm_rb4_2s_cma", "shm_reduce_bcast:fanin=4,bcast=2stage,copy=cma", 0xf0bfe172d811e092ull },
    { "shm_rb8_1s_cma", "shm_reduce_bcast:fanin=8,bcast=1stage,copy=cma", 0xdb968a6edfbf765cull },
    { "shm_rb8_2s_cma", "shm_reduce_bcast:fanin=8,bcast=2stage,copy=cma", 0x66c8e83e4a1b0ee4ull },
    { "shm_tiled_naive", "shm_tiled:tiles=naive,tile=2k,copy=in", 0xab0bd0f8d278a0cfull },
    { "shm_tiled_cyclic_256", "shm_tiled:tiles=cyclic,tile=256,copy=in", 0xac920ffcfba15da1ull },
    { "shm_tiled_cyclic_2k", "shm_tiled:tiles=cyclic,tile=2k,copy=in", 0xa2aef63b35572437ull },
    { "shm_tiled_cyclic_16k", "shm_tiled:tiles=cyclic,tile=16k,copy=in", 0x002f01ec7ac98d97ull },
    { "shm_tiled_cyclic_128k", "shm_tiled:tiles=cyclic,tile=128k,copy=in", 0xb4774b14c2296fe7ull },
    { "shm_tiled_hier_256", "shm_tiled:tiles=hier,tile=256,copy=in", 0xa9402b4d86ccf7a5ull },
    { "shm_tiled_hier_2k", "shm_tiled:tiles=hier,tile=2k,copy=in", 0x38b5b211ed64df57ull },
    { "shm_tiled_hier_16k", "shm_tiled:tiles=hier,tile=16k,copy=in", 0x9c2fb81a7bb66a8full },
    { "shm_tiled_hier_128k", "shm_tiled:tiles=hier,tile=128k,copy=in", 0x2a4026825eb80487ull },
    { "shm_tiled_naive_cma", "shm_tiled:tiles=naive,tile=2k,copy=cma", 0x2463fd11cfe50ba7ull },
    { "shm_tiled_cyclic_256_cma", "shm_tiled:tiles=cyclic,tile=256,copy=cma", 0x082cc724693fd11full },
    { "shm_tiled_cyclic_2k_cma", "shm_tiled:tiles=cyclic,tile=2k,copy=cma", 0x4c82b3b181dc75c3ull },
    { "shm_tiled_cyclic_16k_cma", "shm_tiled:tiles=cyclic,tile=16k,copy=cma", 0x8db31f2a1fea942dull },
    { "shm_tiled_cyclic_128k_cma", "shm_tiled:tiles=cyclic,tile=128k,copy=cma", 0x1216c521dd450547ull },
    { "shm_tiled_hier_256_cma", "shm_tiled:tiles=hier,tile=256,copy=cma", 0x2b8f557424b3962bull },
    { "shm_tiled_hier_2k_cma", "shm_tiled:tiles=hier,tile=2k,copy=cma", 0xaaafe2da8597934full },
    { "shm_tiled_hier_16k_cma", "shm_tiled:tiles=hier,tile=16k,copy=cma", 0x1ac8bf5591e80dc3ull },
    { "shm_tiled_hier_128k_cma", "shm_tiled:tiles=hier,tile=128k,copy=cma", 0xa0b0a6d749f4e327ull },
    { "shm_dissemination", "shm_dissemination", 0x8e918c13bc0bcd53ull },
    { "shm_dissemination_cma", "shm_dissemination_cma", 0x8488d281f2908546ull },
    { "h1_shm_rd", "hierarchical:leaders=1,node=shm,x=rd", 0x52b6f456c1632646ull },
    { "h1_shm_rsa", "hierarchical:leaders=1,node=shm,x=rsa", 0x91873d8b9e3f16f6ull },
    { "h1_shm_ring", "hierarchical:leaders=1,node=shm,x=ring", 0xe069b278504c3420ull },
    { "h1_shm_ring32k", "hierarchical:leaders=1,node=shm,x=ring32k", 0x1e3528e4943bb198ull },
    { "h1_p2p_rd", "hierarchical:leaders=1,node=p2p,x=rd", 0xfa6ba143a5603df5ull },
    { "h1_p2p_rsa", "hierarchical:leaders=1,node=p2p,x=rsa", 0x3742c70b9e4e7721ull },
    { "h1_p2p_ring", "hierarchical:leaders=1,node=p2p,x=ring", 0x0521194cad1601f5ull },
    { "h1_p2p_ring32k", "hierarchical:leaders=1,node=p2p,x=ring32k", 0x690a0331106ba7a5ull },
    { "h1_cma_rd", "hierarchical:leaders=1,node=cma,x=rd", 0x1c6a640303f93087ull },
    { "h1_cma_rsa", "hierarchical:leaders=1,node=cma,x=rsa", 0xf8fb83f1d9fa6767ull },
    { "h1_cma_ring", "hierarchical:leaders=1,node=cma,x=ring", 0xdb98aab1da4c542bull },
    { "h1_cma_ring32k", "hierarchical:leaders=1,node=cma,x=ring32k", 0x7eb81825078a2a57ull },
    { "h2_shm_rd", "hierarchical:leaders=2,node=shm,x=rd", 0xccc842bbbe4f62aeull },
    { "h2_shm_rsa", "hierarchical:leaders=2,node=shm,x=rsa", 0x02a3a3affee163b2ull },
    { "h2_shm_ring", "hierarchical:leaders=2,node=shm,x=ring", 0x51aefbb202497129ull },
    { "h2_shm_ring32k", "hierarchical:leaders=2,node=shm,x=ring32k", 0x00d31e973d6ba005ull },
    { "h2_p2p_rd", "hierarchical:leaders=2,node=p2p,x=rd", 0x1924b141d1162819ull },
    { "h2_p2p_rsa", "hierarchical:leaders=2,node=p2p,x=rsa", 0x84fc0e5880f0af45ull },
    { "h2_p2p_ring", "hierarchical:leaders=2,node=p2p,x=ring", 0x4a88b98f79d1f05eull },
    { "h2_p2p_ring32k", "hierarchical:leaders=2,node=p2p,x=ring32k", 0x46158a3e18d8b25eull },
    { "h2_cma_rd", "hierarchical:leaders=2,node=cma,x=rd", 0xa4b80bbe5935301dull },
    { "h2_cma_rsa", "hierarchical:leaders=2,node=cma,x=rsa", 0x7da666b6b332b599ull },
    { "h2_cma_ring", "hierarchical:leaders=2,node=cma,x=ring", 0x5cc5f82564a407c8ull },
    { "h2_cma_ring32k", "hierarchical:leaders=2,node=cma,x=ring32k", 0x47543bdcdb95a3f0ull },
    { "h4_shm_rd", "hierarchical:leaders=4,node=shm,x=rd", 0x68daf9e07204b3a0ull },
    { "h4_shm_rsa", "hierarchical:leaders=4,node=shm,x=rsa", 0xe3f21159646e0eecull },
    { "h4_shm_ring", "hierarchical:leaders=4,node=shm,x=ring", 0x50da6177fa0ebc7cull },
    { "h4_shm_ring32k", "hierarchical:leaders=4,node=shm,x=ring32k", 0x6629a5e55fe6e5c8ull },
    { "h4_p2p_rd", "hierarchical:leaders=4,node=p2p,x=rd", 0x8a2768bf7810dc8dull },
    { "h4_p2p_rsa", "hierarchical:leaders=4,node=p2p,x=rsa", 0xa09ad710c9fb604dull },
    { "h4_p2p_ring", "hierarchical:leaders=4,node=p2p,x=ring", 0x43c4485bad0fcaa1ull },
    { "h4_p2p_ring32k", "hierarchical:leaders=4,node=p2p,x=ring32k", 0xfe7fcb5f4f01e0f5ull },
    { "h4_cma_rd", "hierarchical:leaders=4,node=cma,x=rd", 0x815b11f92772b30bull },
    { "h4_cma_rsa", "hierarchical:leaders=4,node=cma,x=rsa", 0xd45c2bcd1b9d82a3ull },
    { "h4_cma_ring", "hierarchical:leaders=4,node=cma,x=ring", 0x768b396b343031ffull },
    { "h4_cma_ring32k", "hierarchical:leaders=4,node=cma,x=ring32k", 0xd3ca8646755a813bull },
};

#endif
