(** * Which runs fail (spec/graph.rst, section 3; operators that fail).

    With the error semantics of [Errors.v]: under GRAPH-C1 and
    GRAPH-C1-SOURCES, a maximal run from the initial state fails
    exactly when some operation fails on the values that the evaluation
    going on past failures ([teval]) gives its inputs
    ([error_iff_fails_in_evaluation]). So whether a model fails on given
    inputs is a property of one evaluation, not of the scheduler. Under
    acyclicity and origins (the premises of [exactly_once]), a run that
    does not fail fires every operation exactly once
    ([error_exactly_once]). Without
    GRAPH-C1 the outcome can depend on the order: [clash_outcomes_differ]
    is a graph with two maximal runs, one failing and one succeeding. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence Errors.
Import ListNotations.

Section ErrorCause.

Context {V : Type}.
Variable pinterp : nat -> list (option V) -> list (option V) -> option (list V).
Variable g : graph.

Local Notation state := (@state V).
Local Notation tinterp := (tinterp pinterp).
Local Notation tsteps := (steps tinterp g).
Local Notation eresults := (eresults pinterp).
Local Notation efire := (efire pinterp g).
Local Notation erun := (erun pinterp g).
Local Notation outcome := (outcome g).

(** The evaluation that goes on past failures: the file-order run under
    [tinterp], where a failed operation writes nothing, so what depends
    on it stays undefined. Every operation all of whose inputs get a
    value in it fires in it. *)
Definition teval (s0 : state) : state := run_fuel tinterp g (length (g_ops g)) s0.

(** Operation [i] fails on the values the evaluation gives its inputs. *)
Definition fails_in (s : state) (i : nat) : Prop :=
  exists o, nth_error (g_ops g) i = Some o /\ (forall n, In n (required o) -> defined s n) /\
            eresults s i o = None.

Lemma teval_run : forall s0, maximal_run tinterp g s0 (teval s0).
Proof. intros s0. apply maximal_run_exists. Qed.

(** A state a run reaches agrees with the evaluation on what it defines,
    and the evaluation defines it too. *)
Lemma reach_teval : forall n (s0 u : state) t,
  c1_assign g -> origin_inv g s0 -> tsteps n s0 u -> defined u t ->
  defined (teval s0) t /\ vals (teval s0) t = vals u t.
Proof.
  intros n s0 u t Hc1 Hinv Hu Hd.
  destruct (maximal_run_exists tinterp g u) as [[k Rz] Mz].
  set (z := run_fuel tinterp g (length (g_ops g)) u) in Rz, Mz.
  assert (E : st_eq (teval s0) z).
  { apply (order_independence_from tinterp g s0); auto; [apply teval_run |].
    split; [exists (n + k); apply (steps_trans tinterp g n k s0 u); auto | exact Mz]. }
  destruct (teval_run s0) as [[m Rs] _].
  assert (Hdt : defined (teval s0) t).
  { unfold defined. rewrite (proj1 E). apply (steps_defined tinterp g k u); auto. }
  split; [exact Hdt |]. apply (reach_consistent g tinterp m n s0); auto.
Qed.

Lemma error_iff_fails_in_from : forall s0 e,
  c1_assign g -> origin_inv g s0 -> fired s0 = [] -> erun s0 e ->
  (outcome e = None <-> exists i, fails_in (teval s0) i).
Proof.
  intros s0 e Hc1 Hinv H0 He. split.
  - destruct e as [s2 | i]; [discriminate | intros _].
    destruct (erun_failed pinterp g s0 _ He i eq_refl) as [n [u [Hu [Hi Hfail]]]].
    pose proof Hi as [o [Ho [_ Hreq]]]. exists i, o.
    assert (Hagree : forall t, In t (required o) ->
                       defined (teval s0) t /\ vals (teval s0) t = vals u t)
      by (intros t Ht; apply (reach_teval n s0 u t); auto).
    repeat split; [exact Ho | intros t Ht; apply (Hagree t Ht) |].
    rewrite (eresults_agree pinterp (teval s0) u i o) by (intros t Ht; apply (Hagree t Ht)).
    unfold efire in Hfail. rewrite Ho in Hfail. destruct (eresults u i o); congruence.
  - intros [i [o [Ho [Hreq Hnone]]]].
    destruct e as [s2 | j]; [exfalso | reflexivity].
    destruct (teval_run s0) as [[m Rs] Ms].
    assert (Hf : In i (fired (teval s0))).
    { destruct (In_dec Nat.eq_dec i (fired (teval s0))) as [Hin | Hnin]; [exact Hin |].
      exfalso. apply (Ms i). exists o. repeat split; auto. }
    assert (E : st_eq (teval s0) s2)
      by (apply (order_independence_from tinterp g s0); auto; [apply teval_run |];
          apply (erun_running pinterp g s0 _ He s2 eq_refl)).
    destruct (erun_fired pinterp g s0 _ He s2 i eq_refl (proj1 (proj2 E i) Hf))
      as [Hin0 | [n [w [t [Hw [Hwi Hok]]]]]]; [rewrite H0 in Hin0; destruct Hin0 |].
    pose proof Hwi as [o' [Ho' [_ Hreq']]]. rewrite Ho in Ho'. injection Ho' as <-.
    assert (Eq : eresults (teval s0) i o = eresults w i o).
    { apply (eresults_agree pinterp). intros t' Ht'. apply (reach_consistent g tinterp m n s0); auto. }
    unfold efire in Hok. rewrite Ho, <- Eq, Hnone in Hok. discriminate.
Qed.

(** Under GRAPH-C1 and GRAPH-C1-SOURCES, a maximal run from the
    initial state fails exactly when some operation fails on the values
    the evaluation [teval] gives its inputs (all defined there). No
    acyclicity is needed: an operation whose inputs never all get a value
    (on a cycle, or downstream of a failure) neither fires nor fails. *)
Theorem error_iff_fails_in_evaluation : forall inp init outer e,
  c1_assign g ->
  erun (initial_state g inp init outer) e ->
  (outcome e = None <-> exists i, fails_in (teval (initial_state g inp init outer)) i).
Proof.
  intros inp init outer e Hc1 He.
  apply error_iff_fails_in_from; [exact Hc1 | apply origin_inv_initial | reflexivity | exact He].
Qed.

(** ** Exactly once, when no operator fails *)

(** A successful firing writes every output entry: [checked] accepts
    only one result per entry. *)
Lemma efire_outputs_written : forall s i t,
  efire s i = Running t -> outputs_written g s -> outputs_written g t.
Proof.
  intros s i t Ht Hw k ok u Hk Hok Hu. unfold efire in Ht.
  destruct (nth_error (g_ops g) i) as [o |] eqn:Ho; [| injection Ht as <-; apply (Hw k ok u); auto].
  destruct (eresults s i o) as [rs |] eqn:E; [| discriminate]. injection Ht as <-.
  unfold defined. simpl in Hk |- *. destruct Hk as [<- | Hk].
  - rewrite Ho in Hok. injection Hok as <-. apply write_all; auto.
    unfold eresults, checked in E. destruct (pinterp i (args s o) (imps s o)) as [r |]; [| discriminate].
    destruct (Nat.eqb_spec (length r) (length (op_outputs o))) as [Hl | _]; [| discriminate].
    injection E as <-. exact Hl.
  - apply write_mono. apply (Hw k ok u Hk Hok Hu).
Qed.

Lemma erun_outputs_written : forall s e, erun s e -> forall s', e = Running s' ->
  outputs_written g s -> outputs_written g s'.
Proof.
  intros s e H. induction H as [s Hm | s i Hi Hf | s i t e Hi Ht Hrest IH]; intros s' He Hw.
  - injection He as <-. exact Hw.
  - discriminate.
  - apply (IH s' He). apply (efire_outputs_written s i t); auto.
Qed.

(** Under acyclicity (a strict rank) and origins, the premises of
    [exactly_once], a maximal run from a state where nothing has fired
    that does not fail has fired every operation exactly once. Unlike
    [exactly_once] this needs no arity premise: a result list of the
    wrong length is a failure here. *)
Theorem error_exactly_once : forall rank s0 s,
  ranked g rank -> has_origin g s0 -> fired s0 = [] ->
  erun s0 (Running s) ->
  NoDup (fired s) /\ (forall i, In i (fired s) <-> i < length (g_ops g)).
Proof.
  intros rank s0 s Hrank Horig H0 He.
  destruct (erun_running pinterp g s0 _ He s eq_refl) as [[n Hrun] Hmax].
  assert (Hw : outputs_written g s).
  { apply (erun_outputs_written s0 _ He s eq_refl). intros k ok t Hk. rewrite H0 in Hk. destruct Hk. }
  split; [apply (steps_nodup tinterp g n s0); auto; rewrite H0; constructor |].
  intros i. split.
  - apply (steps_fired_valid tinterp g n s0 s Hrun). intros k Hk. rewrite H0 in Hk. destruct Hk.
  - apply (all_fired_by_rank tinterp g rank s0 s n); auto.
Qed.

End ErrorCause.

(** ** GRAPH-C1 cannot be dropped *)

(** Two operations write tensor 0 (1 and 2), a third reads it and fails on
    2: the run that fires the writer of 2 last succeeds, the run that fires
    it first fails. *)
Definition clash_graph : graph :=
  mkGraph [] [] []
    [mkOp [] [] [Some 0]; mkOp [] [] [Some 0]; mkOp [Some 0] [] [Some 1]] [1].

Definition clash_interp (i : nat) (a _ : list (option nat)) : option (list nat) :=
  match i, a with
  | 0, _ => Some [1]
  | 1, _ => Some [2]
  | _, [Some 2] => None
  | _, _ => Some [0]
  end.

Definition clash_start : @state nat := initial_state clash_graph (fun _ => None) (fun _ => None) (fun _ => None).

Lemma clash_outcomes_differ : exists e1 e2,
  erun clash_interp clash_graph clash_start e1 /\ erun clash_interp clash_graph clash_start e2 /\
  ~ outcome_eq e1 e2.
Proof.
  set (ex := fun (s : @state nat) i (H : executable_b clash_graph s i = true) =>
              proj1 (executable_b_spec clash_graph s i) H).
  eexists. eexists. split; [| split].
  - eapply (erun_fire _ _ _ 0); [apply ex; reflexivity | reflexivity |].
    eapply (erun_fire _ _ _ 2); [apply ex; reflexivity | reflexivity |].
    eapply (erun_fire _ _ _ 1); [apply ex; reflexivity | reflexivity |].
    apply erun_end. apply next_none. reflexivity.
  - eapply (erun_fire _ _ _ 1); [apply ex; reflexivity | reflexivity |].
    apply (erun_fail _ _ _ 2); [apply ex; reflexivity | reflexivity].
  - simpl. tauto.
Qed.

Print Assumptions error_iff_fails_in_evaluation.
Print Assumptions error_exactly_once.
Print Assumptions clash_outcomes_differ.
