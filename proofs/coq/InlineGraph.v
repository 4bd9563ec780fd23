(** * The inlining of a function call, and the lemmas its proofs use
    (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    Definitions of the two readings of a call of a model-local function:
    - nested: [nested_interp] interprets the call by running the function
      body [fb] with the [FileOrder] runner [run_fuel] on the call's input
      values, and returns the body's output values;
    - inlined: [inline_graph], the caller with the body's operations,
      renamed by [ren], in place of the call, interpreted by
      [inline_interp].
    The renaming is a parameter; the premises it must satisfy are stated
    with the theorems ([Inline.v]). This file also proves the lemmas on the
    construction: where each operation lands in the inlined graph, and how
    a write through the renaming acts on values. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence.
Import ListNotations.

(** ** Splitting a list at a position *)

Lemma split_at : forall {A : Type} (l : list A) n a, nth_error l n = Some a ->
  l = firstn n l ++ a :: skipn (S n) l /\ length (firstn n l) = n.
Proof.
  intros A l. induction l as [| x l IH]; intros [| n] a H; simpl in *; try discriminate.
  - injection H as ->. split; reflexivity.
  - destruct (IH n a H) as [E L]. split; [f_equal; exact E | f_equal; exact L].
Qed.

Section Inline.

Context {V : Type}.

(** The interpretation of the caller's operations (the call's entry is
    ignored: the nested reading replaces it) and of the body's. *)
Variable it : nat -> list (option V) -> list (option V) -> list V.
Variable ib : nat -> list (option V) -> list (option V) -> list V.
(** The value the nested reading gives an undefined body output; under
    the premises below no output is undefined, so it never matters. *)
Variable undef : V.
(** The caller, the position of the call, the function body, the renaming. *)
Variable g : graph.
Variable c : nat.
Variable fb : graph.
Variable ren : nat -> nat.

Local Notation fin := (g_inputs fb).
Local Notation fout := (g_outputs fb).
Local Notation m := (length (g_ops fb)).

(** ** The two readings *)

(** The value bound to a body input: the first entry of [fin] naming it. *)
Fixpoint bind_in (ns : list nat) (vs : list (option V)) (t : nat) : option V :=
  match ns, vs with
  | n :: ns', v :: vs' => if Nat.eqb t n then v else bind_in ns' vs' t
  | _, _ => None
  end.

Definition nothing : nat -> option V := fun _ => None.

Definition fill_out (outs : list (option V)) : list V :=
  map (fun x => match x with Some v => v | None => undef end) outs.

(** The nested reading of the call: run the body from its inputs bound to
    the call's arguments (a function has no initializers and no captures)
    and return its outputs. *)
Definition body_run (a : list (option V)) : state :=
  run_fuel ib fb m (initial_state fb (bind_in fin a) nothing nothing).

Definition call_fn (a : list (option V)) : list V := fill_out (outputs_of fb (body_run a)).

Definition nested_interp (i : nat) (a b : list (option V)) : list V :=
  if Nat.eqb i c then call_fn a else it i a b.

(** The inlined reading: the body's operations, renamed, in place of the
    call; the other operations are unchanged. *)
Definition ren_op (o : operation) : operation :=
  mkOp (map (option_map ren) (op_inputs o)) (map ren (op_implicit o)) (map (option_map ren) (op_outputs o)).

Definition inline_ops : list operation :=
  firstn c (g_ops g) ++ map ren_op (g_ops fb) ++ skipn (S c) (g_ops g).

Definition inline_graph : graph :=
  mkGraph (g_inputs g) (g_inits g) (g_captures g) inline_ops (g_outputs g).

Definition inline_interp (k : nat) (a b : list (option V)) : list V :=
  if k <? c then it k a b else if k <? c + m then ib (k - c) a b else it (k - m + 1) a b.

(** Where caller operation [i] (not the call) lands in the inlined graph. *)
Definition pos (i : nat) : nat := if i <? c then i else i + m - 1.

(** ** Names *)

(** A body name that is neither an input nor an output: renamed fresh. *)
Definition internal (u : nat) : Prop := ~ In u fin /\ ~ In u fout.

(** A name that is not the fresh name of an internal body tensor. *)
Definition nonfresh (t : nat) : Prop := forall u, internal u -> ren u <> t.

(** The tensors the caller mentions: its sources, outputs, and every
    tensor an operation consumes or produces. *)
Definition g_tensor (t : nat) : Prop :=
  source g t \/ In t (g_outputs g) \/
  exists i o, nth_error (g_ops g) i = Some o /\ (In t (required o) \/ In (Some t) (op_outputs o)).

(** The call: actual input [k] is [ren (fin k)], actual output [k] is
    [ren (fout k)], no omitted entry, no implicit input. *)
Definition call_op : operation :=
  mkOp (map (fun x => Some (ren x)) fin) [] (map (fun x => Some (ren x)) fout).

(** ** Premises used here *)

(** The lemmas below use four of the premises of
    [Inline.inline_matches_nested], which states and explains them all. *)
Section Proofs.

Hypothesis H_call : nth_error (g_ops g) c = Some call_op.
Hypothesis H_inj : forall u x, ~ In x fin -> ren u = ren x -> u = x.
Hypothesis H_fresh : forall u, internal u -> ~ g_tensor (ren u).
Hypothesis H_c1b : c1_assign fb.

(** ** The inlined graph's operations *)

Lemma c_lt : c < length (g_ops g).
Proof. apply nth_error_Some. rewrite H_call. discriminate. Qed.

Lemma ops_split : g_ops g = firstn c (g_ops g) ++ call_op :: skipn (S c) (g_ops g) /\
  length (firstn c (g_ops g)) = c.
Proof. apply split_at. exact H_call. Qed.

Lemma nth_caller_lt : forall i, i < c -> nth_error (g_ops g) i = nth_error inline_ops i.
Proof.
  intros i Hi. destruct ops_split as [E L]. unfold inline_ops. rewrite E at 1.
  rewrite nth_error_app1 by lia. rewrite nth_error_app1 by lia. reflexivity.
Qed.

Lemma nth_caller_gt : forall i, c < i -> nth_error (g_ops g) i = nth_error inline_ops (i + m - 1).
Proof.
  intros i Hi. destruct ops_split as [E L]. unfold inline_ops. rewrite E at 1.
  rewrite nth_error_app2 by lia. rewrite nth_error_app2 by lia.
  rewrite nth_error_app2 by (rewrite map_length; lia). rewrite map_length, L.
  replace (i - c) with (S (i + m - 1 - c - m)) by lia. reflexivity.
Qed.

Lemma nth_caller : forall i o, i <> c -> nth_error (g_ops g) i = Some o ->
  nth_error (g_ops inline_graph) (pos i) = Some o.
Proof.
  intros i o Hne Hi. simpl. unfold pos. destruct (Nat.ltb_spec i c).
  - rewrite <- nth_caller_lt; auto.
  - rewrite <- nth_caller_gt; auto. lia.
Qed.

Lemma nth_body : forall j o, nth_error (g_ops fb) j = Some o ->
  nth_error (g_ops inline_graph) (c + j) = Some (ren_op o).
Proof.
  intros j o Hj. destruct ops_split as [_ L]. simpl. unfold inline_ops.
  assert (Hjm : j < m) by (apply nth_error_Some; rewrite Hj; discriminate).
  rewrite nth_error_app2 by lia. rewrite nth_error_app1 by (rewrite map_length; lia).
  rewrite L. replace (c + j - c) with j by lia. rewrite nth_error_map, Hj. reflexivity.
Qed.

Lemma nth_inline_inv : forall k o, nth_error (g_ops inline_graph) k = Some o ->
  (exists i, i <> c /\ k = pos i /\ nth_error (g_ops g) i = Some o) \/
  (exists j ob, k = c + j /\ j < m /\ nth_error (g_ops fb) j = Some ob /\ o = ren_op ob).
Proof.
  intros k o Hk. simpl in Hk. destruct ops_split as [_ L].
  destruct (Nat.ltb_spec k c) as [Hlt | Hge].
  - left. exists k. split; [lia |]. split; [unfold pos; rewrite (proj2 (Nat.ltb_lt k c) Hlt); reflexivity |].
    rewrite nth_caller_lt; auto.
  - destruct (Nat.ltb_spec k (c + m)) as [Hlt2 | Hge2].
    + right. unfold inline_ops in Hk. rewrite nth_error_app2 in Hk by lia.
      rewrite nth_error_app1 in Hk by (rewrite map_length; lia). rewrite L, nth_error_map in Hk.
      destruct (nth_error (g_ops fb) (k - c)) as [ob |] eqn:E; [| discriminate].
      injection Hk as <-. exists (k - c), ob. repeat split; auto; lia.
    + left. exists (k - m + 1). split; [lia |].
      assert (Hp : pos (k - m + 1) = k).
      { unfold pos. destruct (Nat.ltb_spec (k - m + 1) c); lia. }
      split; [symmetry; exact Hp |]. rewrite nth_caller_gt by lia.
      replace (k - m + 1 + m - 1) with k by lia. exact Hk.
Qed.

Lemma interp_caller : forall i a b, i <> c -> inline_interp (pos i) a b = nested_interp i a b.
Proof.
  intros i a b Hne. unfold inline_interp, nested_interp, pos.
  destruct (Nat.eqb_spec i c) as [| _]; [contradiction |].
  destruct (Nat.ltb_spec i c) as [Hlt | Hge].
  - rewrite (proj2 (Nat.ltb_lt i c) Hlt). reflexivity.
  - destruct (Nat.ltb_spec (i + m - 1) c); [lia |].
    destruct (Nat.ltb_spec (i + m - 1) (c + m)); [lia |].
    f_equal. lia.
Qed.

Lemma interp_body : forall j a b, j < m -> inline_interp (c + j) a b = ib j a b.
Proof.
  intros j a b Hj. unfold inline_interp.
  destruct (Nat.ltb_spec (c + j) c); [lia |].
  destruct (Nat.ltb_spec (c + j) (c + m)); [| lia]. f_equal. lia.
Qed.

Lemma pos_inj : forall i i', i <> c -> i' <> c -> pos i = pos i' -> i = i'.
Proof.
  intros i i' H1 H2. unfold pos.
  destruct (Nat.ltb_spec i c); destruct (Nat.ltb_spec i' c); lia.
Qed.

Lemma pos_body : forall i j, i <> c -> j < m -> pos i <> c + j.
Proof. intros i j H Hj. unfold pos. destruct (Nat.ltb_spec i c); lia. Qed.

(** ** Names and renaming *)

Lemma g_tensor_nonfresh : forall t, g_tensor t -> nonfresh t.
Proof. intros t Ht u Hu E. subst t. apply (H_fresh u Hu Ht). Qed.

Lemma required_g_tensor : forall i o t, nth_error (g_ops g) i = Some o -> In t (required o) -> g_tensor t.
Proof. intros i o t Ho Ht. right. right. exists i, o. auto. Qed.

Lemma output_g_tensor : forall i o t, nth_error (g_ops g) i = Some o -> In (Some t) (op_outputs o) -> g_tensor t.
Proof. intros i o t Ho Ht. right. right. exists i, o. auto. Qed.

(** A body operation never writes a body input (GRAPH-C1 for the body). *)
Lemma body_out_not_in : forall j o u, nth_error (g_ops fb) j = Some o -> In (Some u) (op_outputs o) ->
  ~ In u fin.
Proof.
  intros j o u Ho Hu Hin. destruct H_c1b as [_ Hsrc]. apply (Hsrc j o u Ho Hu). left. exact Hin.
Qed.

Lemma in_ren_outs : forall l t, In (Some t) (map (option_map ren) l) -> exists u, In (Some u) l /\ t = ren u.
Proof.
  intros l t H. apply in_map_iff in H. destruct H as [[u |] [E Hu]]; [| discriminate].
  injection E as <-. exists u. auto.
Qed.

Lemma ren_in_outs : forall l u, In (Some u) l -> In (Some (ren u)) (map (option_map ren) l).
Proof. intros l u H. apply in_map_iff. exists (Some u). auto. Qed.

Lemma flat_map_present_ren : forall l,
  flat_map present (map (option_map ren) l) = map ren (flat_map present l).
Proof. induction l as [| [x |] l IH]; simpl; auto. f_equal. exact IH. Qed.

Lemma required_ren : forall o, required (ren_op o) = map ren (required o).
Proof.
  intros o. unfold required, ren_op. simpl. rewrite map_app, flat_map_present_ren. reflexivity.
Qed.

Lemma call_outputs_in : forall y, In y fout -> In (Some (ren y)) (op_outputs call_op).
Proof. intros y Hy. simpl. apply in_map_iff. exists y. auto. Qed.

(** ** Writes through the renaming *)

Lemma write_ren : forall outs rs (f : nat -> option V) f',
  (forall x, f' (ren x) = f x) -> (forall n, In (Some n) outs -> ~ In n fin) ->
  forall u, write (map (option_map ren) outs) rs f' (ren u) = write outs rs f u.
Proof.
  induction outs as [| [n |] outs IH]; intros rs f f' Hf Hout u; destruct rs as [| r rs]; simpl; auto.
  - apply IH; [| intros n' Hn'; apply Hout; right; exact Hn'].
    intros x. unfold update. destruct (Nat.eqb_spec (ren x) (ren n)) as [E | E];
      destruct (Nat.eqb_spec x n) as [E' | E']; auto.
    + exfalso. apply E'. apply (H_inj x n); auto. apply Hout. left. reflexivity.
    + subst. contradiction.
  - apply IH; auto. intros n' Hn'. apply Hout. right. exact Hn'.
Qed.

Lemma write_ren_other : forall outs rs (f : nat -> option V) t,
  (forall x, ~ In x fin -> ren x <> t) -> (forall n, In (Some n) outs -> ~ In n fin) ->
  write (map (option_map ren) outs) rs f t = f t.
Proof.
  intros outs rs f t Ht Hout. apply write_other. intros Hin.
  destruct (in_ren_outs outs t Hin) as [u [Hu ->]]. apply (Ht u); auto.
Qed.

(** The call's write gives each actual output the value of its formal
    output. *)
Lemma write_call : forall l (h : nat -> option V) f y v,
  (forall x, In x l -> ren x = ren y -> x = y) -> In y l -> h y = Some v ->
  write (map (fun x => Some (ren x)) l) (fill_out (map h l)) f (ren y) = Some v.
Proof.
  induction l as [| x l IH]; intros h f y v Hinj Hy Hv; [destruct Hy |]. simpl.
  destruct (In_dec Nat.eq_dec y l) as [Hin | Hnin].
  - apply IH; auto. intros x' Hx'. apply Hinj. right. exact Hx'.
  - destruct Hy as [<- | Hy]; [| contradiction].
    rewrite write_other.
    + unfold update. rewrite Nat.eqb_refl. rewrite Hv. reflexivity.
    + intros Hin. apply in_map_iff in Hin. destruct Hin as [x' [E Hx']].
      injection E as E. assert (x' = x) as -> by (apply Hinj; auto; right; exact Hx'). contradiction.
Qed.

End Proofs.

End Inline.
