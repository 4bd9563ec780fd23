(** * Order independence and determinism (spec/graph.rst, section 3).

    Under GRAPH-C1 and GRAPH-C1-SOURCES, two executable operations
    commute and neither disables the other (the diamond lemma
    [diamond]). With termination ([Termination.v]) and an induction on the
    number of unfired operations, every two maximal runs from the initial
    state end in the same state ([order_independence]): the scheduler of
    [run] cannot change the result. Hence the graph outputs are a function
    of the graph inputs, initializers and captured outer values
    ([determinism], GRAPH-DETERMINISM's semantic basis). No operator
    property is assumed: [interp] is arbitrary. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination.
Import ListNotations.

Section OrderIndependence.

Context {V : Type}.
Variable interp : nat -> list (option V) -> list (option V) -> list V.
Variable g : graph.

Local Notation state := (@state V).
Local Notation executable := (executable g).
Local Notation fire := (fire interp g).
Local Notation step := (step interp g).
Local Notation steps := (steps interp g).
Local Notation maximal := (maximal g).
Local Notation maximal_run := (maximal_run interp g).
Local Notation source := (source g).
Local Notation results := (results interp).

(** ** GRAPH-C1 ([c1_single]) and GRAPH-C1-SOURCES ([c1_sources]) *)

(** GRAPH-C1: no two operations write the same tensor. One operation naming a
    tensor at two output positions satisfies [c1_single]: the theorems below
    hold without excluding it (one firing fixes the value), though sonnx's
    GRAPH-C1 rejects it too. *)
Definition c1_single : Prop :=
  forall i j oi oj t,
    nth_error (g_ops g) i = Some oi -> nth_error (g_ops g) j = Some oj ->
    In (Some t) (op_outputs oi) -> In (Some t) (op_outputs oj) -> i = j.

(** GRAPH-C1-SOURCES: no operation writes a graph input, an initializer or a
    capture (a capture is a source of the nested graph; that a nested graph
    defines no enclosing name is GRAPH-C1-SHADOWING, which these theorems do
    not need). *)
Definition c1_sources : Prop :=
  forall i o t, nth_error (g_ops g) i = Some o -> In (Some t) (op_outputs o) -> ~ source t.

Definition c1_assign : Prop := c1_single /\ c1_sources.

(** ** The invariant: every value comes from a source or a fired operation *)

Definition origin_inv (s : state) : Prop :=
  forall t, defined s t ->
    source t \/ exists k ok, In k (fired s) /\ nth_error (g_ops g) k = Some ok /\ In (Some t) (op_outputs ok).

Lemma origin_inv_initial : forall inp init outer, origin_inv (initial_state g inp init outer).
Proof.
  intros inp init outer t Ht. left. apply (initial_vals_source g inp init outer). exact Ht.
Qed.

Lemma origin_inv_step : forall s s', step s s' -> origin_inv s -> origin_inv s'.
Proof.
  intros s s' [i [[o [Ho _]] ->]] Hinv t Ht. unfold defined in Ht.
  rewrite (fire_vals interp g s i o Ho) in Ht. rewrite (fire_fired interp g s i o Ho).
  destruct (write_origin _ _ _ _ Ht) as [Hd | Hout].
  - destruct (Hinv t Hd) as [Hs | [k [ok [Hk [Hok Hkt]]]]]; [left; exact Hs |].
    right. exists k, ok. repeat split; auto. right. exact Hk.
  - right. exists i, o. repeat split; auto. left. reflexivity.
Qed.

Lemma origin_inv_steps : forall n s s', steps n s s' -> origin_inv s -> origin_inv s'.
Proof.
  intros n s s' H. induction H; auto. intros Hi. apply IHsteps. apply (origin_inv_step s); auto.
Qed.

(** ** The diamond lemma *)

(** An executable operation does not write what another executable
    operation reads: that tensor already has a value, so it comes from a
    source or a fired operation, and C1 rules out both. *)
Lemma no_clobber : forall s i j oi oj t,
  c1_assign -> origin_inv s ->
  nth_error (g_ops g) i = Some oi -> ~ In i (fired s) ->
  nth_error (g_ops g) j = Some oj -> (forall n, In n (required oj) -> defined s n) ->
  In t (required oj) -> ~ In (Some t) (op_outputs oi).
Proof.
  intros s i j oi oj t [Hsingle Hsrc] Hinv Hoi Hni Hoj Hreq Ht Hout.
  destruct (Hinv t (Hreq t Ht)) as [Hs | [k [ok [Hk [Hok Hkt]]]]].
  - apply (Hsrc i oi t Hoi Hout). exact Hs.
  - assert (k = i) as -> by (apply (Hsingle k i ok oi t); auto). contradiction.
Qed.

Lemma write_comm : forall A B ra rb (f : nat -> option V) t,
  ~ (In (Some t) A /\ In (Some t) B) ->
  write A ra (write B rb f) t = write B rb (write A ra f) t.
Proof.
  intros A B ra rb f t H.
  destruct (In_dec option_eq_nat (Some t) A) as [HA | HA].
  - assert (HB : ~ In (Some t) B) by tauto.
    rewrite (write_other B rb (write A ra f) t HB).
    apply write_pointwise. apply write_other. exact HB.
  - rewrite (write_other A ra (write B rb f) t HA).
    apply write_pointwise. symmetry. apply write_other. exact HA.
Qed.

Lemma fire_keeps_inputs : forall s i j oi oj,
  c1_assign -> origin_inv s -> executable s i ->
  nth_error (g_ops g) i = Some oi -> nth_error (g_ops g) j = Some oj ->
  (forall n, In n (required oj) -> defined s n) ->
  forall n, In n (required oj) -> vals (fire s i) n = vals s n.
Proof.
  intros s i j oi oj Hc1 Hinv [oi' [Hoi' [Hni _]]] Hoi Hoj Hreq n Hn.
  rewrite Hoi in Hoi'. injection Hoi' as <-.
  rewrite (fire_vals interp g s i oi Hoi). apply write_other.
  apply (no_clobber s i j oi oj n); auto.
Qed.

(** Two distinct executable operations: the second stays executable after
    the first fires, and both orders give equivalent states. *)
Lemma diamond : forall s i j,
  c1_assign -> origin_inv s -> executable s i -> executable s j -> i <> j ->
  executable (fire s i) j /\ st_eq (fire (fire s i) j) (fire (fire s j) i).
Proof.
  intros s i j Hc1 Hinv Hi Hj Hij.
  pose proof Hi as [oi [Hoi [Hni Hri]]]. pose proof Hj as [oj [Hoj [Hnj Hrj]]].
  split.
  - exists oj. repeat split; auto.
    + rewrite (fire_fired interp g s i oi Hoi). intros [Heq | Hin]; [congruence | contradiction].
    + intros n Hn. apply (step_defined interp g s); [exists i; split; auto | apply Hrj; exact Hn].
  - assert (Rj : results (fire s i) j oj = results s j oj).
    { apply results_agree. intros n Hn. apply (fire_keeps_inputs s i j oi oj); auto. }
    assert (Ri : results (fire s j) i oi = results s i oi).
    { apply results_agree. intros n Hn. apply (fire_keeps_inputs s j i oj oi); auto. }
    split.
    + intros t. rewrite (fire_vals interp g (fire s i) j oj Hoj), (fire_vals interp g (fire s j) i oi Hoi).
      rewrite (fire_vals interp g s i oi Hoi), (fire_vals interp g s j oj Hoj).
      unfold results in *. rewrite Rj, Ri. apply write_comm.
      intros [HA HB]. apply Hij. destruct Hc1 as [Hsingle _]. apply (Hsingle i j oi oj t); auto.
    + intros k. rewrite (fire_fired interp g (fire s i) j oj Hoj), (fire_fired interp g (fire s j) i oi Hoi).
      rewrite (fire_fired interp g s i oi Hoi), (fire_fired interp g s j oj Hoj). simpl. tauto.
Qed.

(** ** Order independence *)

Lemma maximal_no_step : forall s t, maximal s -> ~ step s t.
Proof. intros s t Hm [i [Hi _]]. apply (Hm i). exact Hi. Qed.

Lemma steps_inv : forall n s s', steps n s s' ->
  (n = 0 /\ s' = s) \/ exists m t, n = S m /\ step s t /\ steps m t s'.
Proof.
  intros n s s' H. destruct H as [s | n s t u Hst Hrest]; [left; auto |].
  right. exists n, t. auto.
Qed.

(** From any state satisfying the invariant, all maximal runs end in
    equivalent states. By strong induction on the number of unfired
    operations; the diamond closes the case where the two runs start with
    different operations, and a maximal run from the joined state (which
    exists by [maximal_run_exists]) links the two induction hypotheses. *)
Lemma order_independence_from : forall s s1 s2,
  c1_assign -> origin_inv s -> maximal_run s s1 -> maximal_run s s2 -> st_eq s1 s2.
Proof.
  intros s. remember (unfired g s) as k eqn:Hk. revert s Hk.
  induction k as [k IH] using lt_wf_ind.
  intros s Hk s1 s2 Hc1 Hinv [[n1 R1] M1] [[n2 R2] M2].
  destruct (steps_inv n1 s s1 R1) as [[_ E1] | [m1 [t [_ [Hst R1']]]]].
  - destruct (steps_inv n2 s s2 R2) as [[_ E2] | [m2 [u [_ [Hsu R2']]]]].
    + subst s1 s2. apply st_eq_refl.
    + exfalso. subst s1. apply (maximal_no_step s u M1 Hsu).
  - destruct (steps_inv n2 s s2 R2) as [[_ E2] | [m2 [u [_ [Hsu R2']]]]].
    { exfalso. subst s2. apply (maximal_no_step s t M2 Hst). }
    pose proof Hst as [i [Hi ->]]. pose proof Hsu as [j [Hj ->]].
    assert (Ht : unfired g (fire s i) < k) by (subst k; apply (step_unfired interp g s); exact Hst).
    assert (Hu : unfired g (fire s j) < k) by (subst k; apply (step_unfired interp g s); exact Hsu).
    assert (Hinvt : origin_inv (fire s i)) by (apply (origin_inv_step s); auto).
    assert (Hinvu : origin_inv (fire s j)) by (apply (origin_inv_step s); auto).
    destruct (Nat.eq_dec i j) as [<- | Hij].
    + apply (IH _ Ht (fire s i) eq_refl); auto; split; eauto.
    + destruct (diamond s i j Hc1 Hinv Hi Hj Hij) as [Hj' Hw].
      destruct (diamond s j i Hc1 Hinv Hj Hi (not_eq_sym Hij)) as [Hi' _].
      set (w := fire (fire s i) j). set (z := run_fuel interp g (length (g_ops g)) w).
      destruct (maximal_run_exists interp g w) as [[m Rz] Mz]. fold z in Rz, Mz.
      assert (E1 : st_eq s1 z).
      { apply (IH _ Ht (fire s i) eq_refl); auto; split; eauto.
        exists (S m). econstructor; [exists j; split; [exact Hj' | reflexivity] | exact Rz]. }
      destruct (steps_st_eq interp g m w z (fire (fire s j) i) Rz Hw) as [z' [Rz' Ez]].
      assert (E2 : st_eq z' s2).
      { apply (IH _ Hu (fire s j) eq_refl); auto; split; eauto.
        - exists (S m). econstructor; [exists i; split; [exact Hi' | reflexivity] | exact Rz'].
        - apply (maximal_st_eq g z); auto. }
      apply (st_eq_trans _ z); auto. apply (st_eq_trans _ z'); auto.
Qed.

(** Order independence: under GRAPH-C1 and GRAPH-C1-SOURCES, any
    two maximal runs from the initial state end in the same state (same
    values, same fired operations), whatever the operators compute. *)
Theorem order_independence : forall inp init outer s1 s2,
  c1_assign ->
  maximal_run (initial_state g inp init outer) s1 ->
  maximal_run (initial_state g inp init outer) s2 ->
  st_eq s1 s2.
Proof.
  intros inp init outer s1 s2 Hc1 H1 H2.
  apply (order_independence_from (initial_state g inp init outer)); auto.
  apply origin_inv_initial.
Qed.

(** The file-order runner [run_fuel] (the [FileOrder] scheduler of
    [run]) ends in the same state as every maximal run: it may stand for
    the semantics. *)
Theorem runner_correct : forall inp init outer s,
  c1_assign ->
  maximal_run (initial_state g inp init outer) s ->
  st_eq (run_fuel interp g (length (g_ops g)) (initial_state g inp init outer)) s.
Proof.
  intros inp init outer s Hc1 Hrun.
  apply (order_independence inp init outer); auto. apply maximal_run_exists.
Qed.

(** ** Determinism *)

Lemma initial_state_agree : forall inp1 inp2 init1 init2 outer1 outer2 : nat -> option V,
  (forall t, In t (g_inputs g) -> inp1 t = inp2 t) ->
  (forall t, In t (g_inits g) -> init1 t = init2 t) ->
  (forall t, In t (g_captures g) -> outer1 t = outer2 t) ->
  st_eq (initial_state g inp1 init1 outer1) (initial_state g inp2 init2 outer2).
Proof.
  intros inp1 inp2 init1 init2 outer1 outer2 Hi Hn Ho. split; [| simpl; tauto].
  intros t. simpl. unfold initial_vals.
  destruct (mem t (g_inputs g)) eqn:E1; [rewrite (Hi t) by (apply mem_In; exact E1) |].
  all: destruct (mem t (g_inits g)) eqn:E2; [rewrite (Hn t) by (apply mem_In; exact E2) |].
  all: destruct (mem t (g_captures g)) eqn:E3; [rewrite (Ho t) by (apply mem_In; exact E3) |].
  all: reflexivity.
Qed.

(** Determinism: under GRAPH-C1 and GRAPH-C1-SOURCES, the values
    of the graph outputs at the end of any maximal run depend only on the
    values of the graph inputs, the initializers and the captured outer
    tensors (not on the scheduler, nor on values of other names). *)
Theorem determinism : forall inp1 inp2 init1 init2 outer1 outer2 s1 s2,
  c1_assign ->
  (forall t, In t (g_inputs g) -> inp1 t = inp2 t) ->
  (forall t, In t (g_inits g) -> init1 t = init2 t) ->
  (forall t, In t (g_captures g) -> outer1 t = outer2 t) ->
  maximal_run (initial_state g inp1 init1 outer1) s1 ->
  maximal_run (initial_state g inp2 init2 outer2) s2 ->
  outputs_of g s1 = outputs_of g s2.
Proof.
  intros inp1 inp2 init1 init2 outer1 outer2 s1 s2 Hc1 Hi Hn Ho [[n R1] M1] H2.
  pose proof (initial_state_agree inp1 inp2 init1 init2 outer1 outer2 Hi Hn Ho) as E0.
  destruct (steps_st_eq interp g n _ s1 _ R1 E0) as [s1' [R1' E1]].
  assert (E2 : st_eq s1' s2).
  { apply (order_independence inp2 init2 outer2); auto. split; [exists n; exact R1' |].
    apply (maximal_st_eq g s1); auto. }
  destruct (st_eq_trans _ _ _ E1 E2) as [Hv _].
  unfold outputs_of. apply map_ext. exact Hv.
Qed.

End OrderIndependence.

Print Assumptions diamond.
Print Assumptions order_independence.
Print Assumptions determinism.
Print Assumptions runner_correct.
