(** * GRAPH-ACYCLIC: a finite graph has no cycle exactly when it has a strict rank.

    The dependency graph of a SONNX graph (spec/graph.rst, GRAPH-ACYCLIC) has the
    operations as vertices, numbered [0 .. n-1], and an edge [u -> v] when [u]
    produces a tensor that [v] consumes.  This file proves, for every [n] and every
    edge list whose endpoints lie below [n]:

      no vertex reaches itself by a path of one or more edges
      <->  some [r : nat -> nat] has [r u < r v] on every edge [u -> v],

    and that the rank can be chosen below [n] on every vertex.  The rank built is
    the length of the longest walk ending at a vertex.  Only Coq's standard
    library is used; there is no axiom, [Admitted] or [admit]. *)

From Coq Require Import List Arith Lia Relations.
Import ListNotations.

Section Graph.

(** The edges of the graph, as a list of pairs [(source, target)]. *)
Variable es : list (nat * nat).

Definition edge (u v : nat) : Prop := In (u, v) es.

(** The vertices are [0 .. n-1]: every edge has both endpoints below [n]. *)
Definition within (n : nat) : Prop :=
  forall u v, In (u, v) es -> u < n /\ v < n.

(** [reach u v]: a path of one or more edges leads from [u] to [v]. *)
Definition reach : nat -> nat -> Prop := clos_trans nat edge.

(** GRAPH-ACYCLIC: no path of length at least one from a vertex to itself. *)
Definition acyclic : Prop := forall v, ~ reach v v.

(** A strict rank increases along every edge. *)
Definition strict_rank (r : nat -> nat) : Prop := forall u v, edge u v -> r u < r v.

(** ** From a rank to acyclicity *)

Lemma rank_increases_on_paths :
  forall r, strict_rank r -> forall u v, reach u v -> r u < r v.
Proof.
  intros r Hr u v Hp. induction Hp as [u v He | u w v _ IH1 _ IH2].
  - exact (Hr u v He).
  - lia.
Qed.

Lemma strict_rank_acyclic : forall r, strict_rank r -> acyclic.
Proof.
  intros r Hr v Hp. pose proof (rank_increases_on_paths r Hr v v Hp). lia.
Qed.

(** ** Walks, written from their last vertex backwards *)

(** [rwalk v l]: a walk ends at [v], and [l] lists the vertices before [v],
    nearest first; the walk has [length l] edges. *)
Inductive rwalk : nat -> list nat -> Prop :=
| rw_one : forall v, rwalk v []
| rw_cons : forall u v l, rwalk u l -> edge u v -> rwalk v (u :: l).

Lemma rwalk_reach : forall v l, rwalk v l -> forall x, In x l -> reach x v.
Proof.
  intros v l Hw. induction Hw as [v | u v l Hw IH He]; intros x Hx.
  - destruct Hx.
  - destruct Hx as [Hx | Hx].
    + subst x. apply t_step. exact He.
    + apply t_trans with u; [exact (IH x Hx) | apply t_step; exact He].
Qed.

(** In an acyclic graph a walk never visits a vertex twice. *)
Lemma rwalk_nodup : acyclic -> forall v l, rwalk v l -> NoDup (v :: l).
Proof.
  intros Hac v l Hw. induction Hw as [v | u v l Hw IH He].
  - constructor; [intros [] | constructor].
  - constructor; [| exact IH].
    intros Hin. apply (Hac v). apply (rwalk_reach v (u :: l)); [| exact Hin].
    apply rw_cons; assumption.
Qed.

(** A walk with at least one edge stays among the vertices [0 .. n-1]. *)
Lemma rwalk_within :
  forall n, within n -> forall v l, rwalk v l -> l = [] \/ (v < n /\ forall x, In x l -> x < n).
Proof.
  intros n Hn v l Hw. induction Hw as [v | u v l Hw IH He].
  - left. reflexivity.
  - right. destruct (Hn u v He) as [Hu Hv]. split; [exact Hv |].
    intros x [Hx | Hx]; [subst x; exact Hu |].
    destruct IH as [Hl | [_ Hl]]; [subst l; destruct Hx | exact (Hl x Hx)].
Qed.

(** Pigeonhole: in an acyclic graph on [n] vertices a walk ending at a vertex has
    fewer than [n] edges. *)
Lemma rwalk_short :
  forall n, within n -> acyclic -> forall v l, rwalk v l -> v < n -> length l < n.
Proof.
  intros n Hn Hac v l Hw Hv.
  destruct (rwalk_within n Hn v l Hw) as [Hl | [_ Hl]]; [subst l; simpl; lia |].
  assert (Hincl : incl (v :: l) (seq 0 n)).
  { intros x [Hx | Hx]; apply in_seq; [subst x; lia | specialize (Hl x Hx); lia]. }
  pose proof (NoDup_incl_length (rwalk_nodup Hac v l Hw) Hincl) as Hlen.
  rewrite seq_length in Hlen. simpl in Hlen. lia.
Qed.

(** ** The longest-walk rank *)

Fixpoint maxl (l : list nat) : nat :=
  match l with
  | [] => 0
  | x :: t => Nat.max x (maxl t)
  end.

Lemma maxl_ge : forall l x, In x l -> x <= maxl l.
Proof.
  induction l as [| y t IH]; intros x Hx; simpl in *; [destruct Hx |].
  destruct Hx as [Hx | Hx]; [subst; lia | specialize (IH x Hx); lia].
Qed.

Lemma maxl_attained : forall l, maxl l = 0 \/ In (maxl l) l.
Proof.
  induction l as [| y t IH]; simpl; [left; reflexivity |].
  destruct (Nat.max_spec y (maxl t)) as [[_ Hm] | [_ Hm]]; rewrite Hm.
  - destruct IH as [IH | IH]; [left; exact IH | right; right; exact IH].
  - right; left; reflexivity.
Qed.

(** [longest d v]: the most edges of a walk ending at [v] with at most [d] edges. *)
Fixpoint longest (d v : nat) : nat :=
  match d with
  | 0 => 0
  | S d' => maxl (map (fun e => if Nat.eqb (snd e) v then S (longest d' (fst e)) else 0) es)
  end.

(** The value of [longest] is the length of an actual walk. *)
Lemma longest_walk : forall d v, exists l, rwalk v l /\ length l = longest d v.
Proof.
  induction d as [| d IH]; intros v; [exists []; split; [constructor | reflexivity] |].
  cbn [longest]. set (f := fun e : nat * nat => if Nat.eqb (snd e) v then S (longest d (fst e)) else 0).
  destruct (maxl_attained (map f es)) as [H0 | Hin].
  - rewrite H0. exists []. split; [constructor | reflexivity].
  - apply in_map_iff in Hin. destruct Hin as [[u w] [Hf Hes]].
    rewrite <- Hf. unfold f. simpl. destruct (Nat.eqb_spec w v) as [Hw | Hw].
    + subst w. destruct (IH u) as [l [Hl Hlen]].
      exists (u :: l). split; [apply rw_cons; assumption | simpl; rewrite Hlen; reflexivity].
    + exists []. split; [constructor | reflexivity].
Qed.

(** Every walk of at most [d] edges is no longer than [longest d]. *)
Lemma longest_bounds_walks :
  forall v l, rwalk v l -> forall d, length l <= d -> length l <= longest d v.
Proof.
  intros v l Hw. induction Hw as [v | u v l Hw IH He]; intros d Hd; simpl in *; [lia |].
  destruct d as [| d]; [lia |]. cbn [longest].
  set (f := fun e : nat * nat => if Nat.eqb (snd e) v then S (longest d (fst e)) else 0).
  assert (Hfe : f (u, v) = S (longest d u)).
  { unfold f. simpl. rewrite Nat.eqb_refl. reflexivity. }
  pose proof (maxl_ge (map f es) (f (u, v)) (in_map f es (u, v) He)) as Hge.
  specialize (IH d ltac:(lia)). lia.
Qed.

(** ** From acyclicity to a rank *)

Lemma acyclic_longest_strict :
  forall n, within n -> acyclic -> strict_rank (longest n).
Proof.
  intros n Hn Hac u v He.
  destruct (longest_walk n u) as [l [Hl Hlen]].
  assert (Hw : rwalk v (u :: l)) by (apply rw_cons; assumption).
  pose proof (rwalk_short n Hn Hac v (u :: l) Hw (proj2 (Hn u v He))) as Hshort.
  pose proof (longest_bounds_walks v (u :: l) Hw n ltac:(lia)) as Hb.
  simpl in Hb. lia.
Qed.

Lemma acyclic_longest_below :
  forall n, within n -> acyclic -> forall v, v < n -> longest n v < n.
Proof.
  intros n Hn Hac v Hv. destruct (longest_walk n v) as [l [Hl Hlen]].
  rewrite <- Hlen. exact (rwalk_short n Hn Hac v l Hl Hv).
Qed.

(** ** The theorems *)

(** GRAPH-ACYCLIC, for every number of vertices: acyclic iff a strict rank exists. *)
Theorem acyclic_iff_strict_rank :
  forall n, within n -> (acyclic <-> exists r : nat -> nat, strict_rank r).
Proof.
  intros n Hn. split.
  - intros Hac. exists (longest n). exact (acyclic_longest_strict n Hn Hac).
  - intros [r Hr]. exact (strict_rank_acyclic r Hr).
Qed.

(** The rank can be bounded by the number of vertices, as the per-model SMT
    encoding of GRAPH-ACYCLIC assumes when it asks for ranks in [0 .. n-1]. *)
Theorem acyclic_iff_bounded_rank :
  forall n, within n ->
    (acyclic <-> exists r : nat -> nat, strict_rank r /\ forall v, v < n -> r v < n).
Proof.
  intros n Hn. split.
  - intros Hac. exists (longest n). split.
    + exact (acyclic_longest_strict n Hn Hac).
    + exact (acyclic_longest_below n Hn Hac).
  - intros [r [Hr _]]. exact (strict_rank_acyclic r Hr).
Qed.

End Graph.

(** ** The same for a decidable relation on [0 .. n-1]

    A graph may also be given as a boolean test [E u v] on the vertices below
    [n]; its edge list is every pair below [n] that passes the test. *)

Section Decidable.

Variable n : nat.
Variable E : nat -> nat -> bool.

Definition rel (u v : nat) : Prop := u < n /\ v < n /\ E u v = true.

Definition rel_edges : list (nat * nat) :=
  filter (fun p => E (fst p) (snd p)) (list_prod (seq 0 n) (seq 0 n)).

Lemma rel_edges_spec : forall u v, edge rel_edges u v <-> rel u v.
Proof.
  intros u v. unfold edge, rel_edges, rel.
  rewrite filter_In, in_prod_iff, !in_seq. simpl.
  split; [intros [[? ?] ?] | intros [? [? ?]]]; repeat split; lia || assumption.
Qed.

Lemma rel_edges_within : within rel_edges n.
Proof. intros u v He. apply rel_edges_spec in He. destruct He as [? [? _]]. split; assumption. Qed.

Lemma reach_rel : forall u v, reach rel_edges u v <-> clos_trans nat rel u v.
Proof.
  intros u v. split; intros H; induction H as [u v He | u w v _ IH1 _ IH2].
  - apply t_step. apply rel_edges_spec. exact He.
  - apply t_trans with w; assumption.
  - apply t_step. apply rel_edges_spec. exact He.
  - apply t_trans with w; assumption.
Qed.

(** GRAPH-ACYCLIC for a decidable relation on [n] vertices, for every [n]. *)
Theorem acyclic_iff_strict_rank_dec :
  (forall v, ~ clos_trans nat rel v v) <-> exists r : nat -> nat, forall u v, rel u v -> r u < r v.
Proof.
  assert (Hac : acyclic rel_edges <-> forall v, ~ clos_trans nat rel v v).
  { unfold acyclic. split; intros H v Hc; apply (H v), reach_rel; exact Hc. }
  assert (Hr : forall r, strict_rank rel_edges r <-> forall u v, rel u v -> r u < r v).
  { intros r. unfold strict_rank. split; intros H u v Huv; apply H, rel_edges_spec; exact Huv. }
  rewrite <- Hac, (acyclic_iff_strict_rank rel_edges n rel_edges_within).
  split; intros [r H]; exists r; apply Hr; exact H.
Qed.

End Decidable.
