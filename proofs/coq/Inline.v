(** * A function call run as a nested graph gives the result of its inlining
    (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    The spec defines a call of a model-local function by inlining: the body
    is written in place of the call, its formal inputs and outputs replaced
    by the call's actual tensors and its other tensors given fresh names.
    The other reading runs the body as a nested graph: the call is one
    operation whose interpretation runs the body (with the [FileOrder]
    runner [run_fuel]) on the call's input values and returns the body's
    output values. Theorems:
    - [inline_matches_nested]: the two readings agree. Every maximal run
      of the caller under the nested reading in which the call fires, and
      every maximal run of the inlined graph, end with the same value on
      every tensor that is not a fresh name, the graph outputs among them;
    - [inline_c1_assign]: the inlined graph satisfies GRAPH-C1's
      at-most-one half when the caller and the body do (so order
      independence applies to it);
    - [inline_premises_satisfiable]: a concrete call on which every premise
      holds, so the main theorem is not vacuous;
    - [strict_call_needed]: the premise that the call fires cannot be
      dropped. The nested reading is strict (the call waits for all of its
      inputs) while the inlined body's operations may fire on some of
      them, so a call that never fires can leave undefined an output that
      the inlined graph defines.

    The renaming [ren] is a parameter constrained by stated premises
    (interface names map to the call's tensors, other names to fresh ones,
    injective on every name the body may write); the inlined graph
    [inline_graph] and its interpretation [inline_interp] are definitions.
    The proof builds, from any run of the caller, a run of the inlined
    graph that fires the caller's other operations one for one and the
    body's run as a block of steps in place of the call ([sim], [bsim],
    [inv]); the result for every maximal run of the inlined graph then
    follows from [order_independence].

    Scope: the call has no omitted input or output entry (an optional
    input or output left out is not modelled), and the body is flat: its
    operations are interpreted by arbitrary operators [ib], so a call
    nested in the body is covered by applying the theorem to it first. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3.
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

(** ** Premises *)

(** The proof assumes the premises of [inline_matches_nested] below, which
    states and explains them. *)
Section Proofs.

Hypothesis H_call : nth_error (g_ops g) c = Some call_op.
Hypothesis H_noinit : g_inits fb = [].
Hypothesis H_nocap : g_captures fb = [].
Hypothesis H_io : forall u, In u fin -> ~ In u fout.
Hypothesis H_inj : forall u x, ~ In x fin -> ren u = ren x -> u = x.
Hypothesis H_fresh : forall u, internal u -> ~ g_tensor (ren u).
Hypothesis H_c1g : c1_assign g.
Hypothesis H_c1b : c1_assign fb.
Hypothesis H_arb : arity_ok ib fb.
Hypothesis H_c3b : forall inp, (forall x, In x fin -> inp x <> None) ->
  c3_fixpoint fb (initial_state fb inp nothing nothing).

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

(** ** The simulation relation *)

(** [sim s s' bv bf]: the caller state [s] (nested reading) and the inlined
    state [s'] agree on every name that is not fresh; the fresh names hold
    the body's values [bv]; the operations fired in [s'] are the caller's
    (but the call) at their new positions and the body operations [bf]. *)
Definition sim (s s' : @state V) (bv : nat -> option V) (bf : list nat) : Prop :=
  (forall t, nonfresh t -> vals s' t = vals s t) /\
  (forall u, internal u -> vals s' (ren u) = bv u) /\
  (forall j, In j bf -> j < m) /\
  (forall k, In k (fired s') <->
     (exists i, In i (fired s) /\ i <> c /\ k = pos i) \/ (exists j, In j bf /\ k = c + j)).

Lemma sim_caller_step : forall s s' bv bf i,
  sim s s' bv bf -> i <> c -> executable g s i ->
  executable inline_graph s' (pos i) /\
  sim (fire nested_interp g s i) (fire inline_interp inline_graph s' (pos i)) bv bf.
Proof.
  intros s s' bv bf i [Hv [Hb [Hbf Hf]]] Hne [o [Ho [Hn Hr]]].
  assert (Ho' : nth_error (g_ops inline_graph) (pos i) = Some o) by (apply nth_caller; auto).
  assert (Hreq : forall n, In n (required o) -> vals s' n = vals s n).
  { intros n Hin. apply Hv. apply g_tensor_nonfresh. apply (required_g_tensor i o); auto. }
  split.
  - exists o. repeat split; auto.
    + intros Hin. apply Hf in Hin. destruct Hin as [[i' [Hi' [Hne' E]]] | [j [Hj E]]].
      * apply pos_inj in E; auto. subst. contradiction.
      * apply (pos_body i j); auto.
    + intros n Hin. unfold defined. rewrite Hreq; auto. apply Hr. exact Hin.
  - assert (Hres : results inline_interp s' (pos i) o = results nested_interp s i o).
    { transitivity (results nested_interp s' i o); [unfold results; apply interp_caller; exact Hne |].
      apply results_agree. exact Hreq. }
    unfold sim. rewrite (fire_vals inline_interp inline_graph s' (pos i) o Ho'), (fire_fired inline_interp inline_graph s' (pos i) o Ho').
    rewrite (fire_vals nested_interp g s i o Ho), (fire_fired nested_interp g s i o Ho).
    split; [| split; [| split]]; simpl.
    + intros t Ht. rewrite Hres. apply write_pointwise. apply Hv. exact Ht.
    + intros u Hu. rewrite write_other; [apply Hb; exact Hu |].
      intros Hin. apply (H_fresh u Hu). apply (output_g_tensor i o); auto.
    + exact Hbf.
    + intros k. rewrite Hf. split.
      * intros [E | [[i' [Hi' [Hne' E]]] | Hj]]; [left; exists i; auto | left; exists i'; auto | right; exact Hj].
      * intros [[i' [[E | Hi'] [Hne' E']]] | Hj]; [left; subst; reflexivity | | right; right; exact Hj].
        right. left. exists i'. auto.
Qed.

(** ** The call as a block of body steps *)

(** [bsim sb s2 s']: during the inlined body's run from [s'], the state
    [s2] holds the body state [sb] under the renaming, and is [s'] on
    every name the body cannot write. *)
Definition bsim (sb s2 s' : @state V) : Prop :=
  (forall u, vals s2 (ren u) = vals sb u) /\
  (forall t, (forall x, ~ In x fin -> ren x <> t) -> vals s2 t = vals s' t) /\
  (forall j, In j (fired sb) -> j < m) /\
  (forall k, In k (fired s2) <-> In k (fired s') \/ exists j, In j (fired sb) /\ k = c + j).

Lemma args_ren : forall (s2 sb : @state V) o, (forall u, vals s2 (ren u) = vals sb u) ->
  args s2 (ren_op o) = args sb o /\ imps s2 (ren_op o) = imps sb o.
Proof.
  intros s2 sb o Hv. unfold args, imps, ren_op. simpl. rewrite !map_map. split.
  - apply map_ext. intros [u |]; simpl; auto.
  - apply map_ext. intros u. apply Hv.
Qed.

Lemma bsim_step : forall s' sb s2 j,
  (forall j, j < m -> ~ In (c + j) (fired s')) -> bsim sb s2 s' -> executable fb sb j ->
  executable inline_graph s2 (c + j) /\
  bsim (fire ib fb sb j) (fire inline_interp inline_graph s2 (c + j)) s'.
Proof.
  intros s' sb s2 j Hfree [Hv [Ho [Hbf Hf]]] [o [Hoj [Hn Hr]]].
  assert (Hjm : j < m) by (apply nth_error_Some; rewrite Hoj; discriminate).
  assert (Ho' := nth_body j o Hoj).
  split.
  - exists (ren_op o). repeat split; auto.
    + intros Hin. apply Hf in Hin. destruct Hin as [Hin | [j' [Hj' E]]].
      * apply (Hfree j Hjm Hin).
      * assert (j' = j) as -> by lia. contradiction.
    + rewrite required_ren. intros n Hin. apply in_map_iff in Hin. destruct Hin as [u [<- Hu]].
      unfold defined. rewrite Hv. apply Hr. exact Hu.
  - assert (Hres : results inline_interp s2 (c + j) (ren_op o) = results ib sb j o).
    { unfold results. rewrite interp_body by exact Hjm.
      destruct (args_ren s2 sb o Hv) as [-> ->]. reflexivity. }
    assert (Hout : forall n, In (Some n) (op_outputs o) -> ~ In n fin)
      by (intros n Hn'; apply (body_out_not_in j o n); auto).
    unfold bsim. rewrite (fire_vals inline_interp inline_graph s2 (c + j) (ren_op o) Ho').
    rewrite (fire_fired inline_interp inline_graph s2 (c + j) (ren_op o) Ho').
    rewrite (fire_vals ib fb sb j o Hoj), (fire_fired ib fb sb j o Hoj). rewrite Hres. simpl.
    split; [| split; [| split]].
    + intros u. apply write_ren; auto.
    + intros t Ht. rewrite write_ren_other; auto.
    + intros j' [<- | Hj']; auto.
    + intros k. rewrite Hf. split.
      * intros [E | [Hk | [j' [Hj' E]]]]; [right; exists j; auto | left; exact Hk | right; exists j'; auto].
      * intros [Hk | [j' [[<- | Hj'] E]]]; [right; left; exact Hk | left; symmetry; exact E |].
        right. right. exists j'. auto.
Qed.

Lemma bsim_steps : forall s' n sb sb', steps ib fb n sb sb' ->
  (forall j, j < m -> ~ In (c + j) (fired s')) ->
  forall s2, bsim sb s2 s' ->
  exists s3, steps inline_interp inline_graph n s2 s3 /\ bsim sb' s3 s'.
Proof.
  intros s' n sb sb' R Hfree. induction R as [sb | n sb sb1 sb' [j [Hj ->]] _ IH]; intros s2 Hs.
  - exists s2. split; [constructor | exact Hs].
  - destruct (bsim_step s' sb s2 j Hfree Hs Hj) as [He Hs1].
    destruct (IH _ Hs1) as [s3 [R' Hs']]. exists s3. split; auto.
    econstructor; [| exact R']. exists (c + j). split; auto.
Qed.

Lemma bind_in_map : forall (f : nat -> option V) l u, In u l -> bind_in l (map f l) u = f u.
Proof.
  intros f l. induction l as [| x l IH]; intros u Hu; [destruct Hu |]. simpl.
  destruct (Nat.eqb_spec u x) as [-> | Hne]; auto.
  apply IH. destruct Hu as [-> | Hu]; [contradiction | exact Hu].
Qed.

Lemma call_required : forall x, In x fin -> In (ren x) (required call_op).
Proof.
  intros x Hx. unfold required. simpl. rewrite app_nil_r. apply in_flat_map.
  exists (Some (ren x)). split; [apply in_map_iff; exists x; auto | left; reflexivity].
Qed.

Lemma body_initial_vals : forall inp u,
  vals (initial_state fb inp nothing nothing) u = if mem u fin then inp u else None.
Proof.
  intros inp u. simpl. unfold initial_vals. rewrite H_noinit, H_nocap. simpl.
  destruct (mem u fin); [destruct (inp u) |]; reflexivity.
Qed.

(** Firing the call in the nested reading is simulated by the inlined
    body's run, as a block of steps. *)
Lemma call_block : forall s s',
  ~ In c (fired s) -> origin_inv g s -> sim s s' nothing [] -> executable g s c ->
  exists n s3, steps inline_interp inline_graph n s' s3 /\
    exists sb, maximal fb sb /\ (forall u, In u fin \/ In u fout -> defined sb u) /\
      sim (fire nested_interp g s c) s3 (vals sb) (fired sb).
Proof.
  intros s s' Hnc Hinv [Hv [Hb [_ Hf]]] [o [Ho [_ Hr]]].
  rewrite H_call in Ho. injection Ho as <-.
  set (a := args s call_op). set (sb0 := initial_state fb (bind_in fin a) nothing nothing).
  assert (Ha : forall x, In x fin -> bind_in fin a x = vals s (ren x)).
  { intros x Hx. unfold a, args. simpl. rewrite map_map. simpl.
    apply (bind_in_map (fun y => vals s (ren y))). exact Hx. }
  assert (Hdef0 : forall x, In x fin -> bind_in fin a x <> None).
  { intros x Hx. rewrite Ha by exact Hx. apply Hr. apply call_required. exact Hx. }
  assert (Hsb0 : forall u, vals sb0 u = if mem u fin then bind_in fin a u else None)
    by (intros u; apply body_initial_vals).
  destruct (maximal_run_exists ib fb sb0) as [[nb Rb] Mb].
  set (sb := run_fuel ib fb m sb0) in Rb, Mb.
  assert (Hsb_out : forall y, In y fout -> defined sb y).
  { intros y Hy. apply (derivable_defined ib fb sb0 sb H_arb eq_refl); [split; [exists nb; exact Rb | exact Mb] |].
    apply (H_c3b (bind_in fin a) Hdef0). exact Hy. }
  assert (Hsb_in : forall x, In x fin -> defined sb x).
  { intros x Hx. apply (steps_defined ib fb nb sb0); auto. unfold defined. rewrite Hsb0.
    rewrite (proj2 (mem_In x fin) Hx). apply Hdef0. exact Hx. }
  assert (Hfree : forall j, j < m -> ~ In (c + j) (fired s')).
  { intros j Hj Hin. apply Hf in Hin. destruct Hin as [[i [_ [Hne E]]] | [j' [[] _]]].
    apply (pos_body i j); auto. }
  assert (Hs0 : bsim sb0 s' s').
  { split; [| split; [| split]].
    - intros u. rewrite Hsb0. destruct (mem u fin) eqn:Em.
      + apply mem_In in Em. rewrite Ha by exact Em. apply Hv. apply g_tensor_nonfresh.
        apply (required_g_tensor c call_op); auto. apply call_required. exact Em.
      + apply mem_false in Em. destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
        * rewrite Hv by (apply g_tensor_nonfresh; apply (output_g_tensor c call_op); auto;
                         apply call_outputs_in; exact Hout).
          destruct (vals s (ren u)) eqn:E; [exfalso | reflexivity].
          destruct (Hinv (ren u)) as [Hsrc | [k [ok [Hk [Hok Hkt]]]]]; [unfold defined; rewrite E; discriminate | |].
          -- destruct H_c1g as [_ Hs]. apply (Hs c call_op (ren u) H_call); auto. apply call_outputs_in. exact Hout.
          -- destruct H_c1g as [Hs _]. assert (k = c) as -> by (apply (Hs k c ok call_op (ren u)); auto;
               apply call_outputs_in; exact Hout). contradiction.
        * apply Hb. split; auto.
    - intros t _. reflexivity.
    - intros j [].
    - intros k. simpl. split; [intros H; left; exact H | intros [H | [j [[] _]]]; exact H]. }
  destruct (bsim_steps s' nb sb0 sb Rb Hfree s' Hs0) as [s3 [R' [Hv' [Ho' [Hbf' Hf']]]]].
  exists nb, s3. split; [exact R' |]. exists sb. split; [exact Mb |]. split.
  { intros u [Hu | Hu]; auto. }
  assert (Hres : results nested_interp s c call_op = fill_out (map (vals sb) fout)).
  { unfold results, nested_interp. rewrite Nat.eqb_refl. reflexivity. }
  unfold sim. rewrite (fire_vals nested_interp g s c call_op H_call), (fire_fired nested_interp g s c call_op H_call).
  rewrite Hres. simpl. split; [| split; [| split]].
  - intros t Ht. destruct (In_dec Nat.eq_dec t (map ren fout)) as [Hin | Hnin].
    + apply in_map_iff in Hin. destruct Hin as [y [<- Hy]].
      rewrite Hv'. destruct (vals sb y) as [v |] eqn:Ey; [| exfalso; apply (Hsb_out y Hy Ey)].
      symmetry. apply write_call; auto. intros x Hx E. apply (H_inj x y); auto.
      intros Hyi. apply (H_io y Hyi Hy).
    + rewrite Ho'.
      * rewrite Hv by exact Ht. symmetry. apply write_other. intros Hin. apply Hnin.
        apply in_map_iff in Hin. destruct Hin as [x [E Hx]]. injection E as E. apply in_map_iff. exists x. auto.
      * intros x Hx E. destruct (In_dec Nat.eq_dec x fout) as [Hxo | Hxo].
        -- apply Hnin. apply in_map_iff. exists x. auto.
        -- apply (Ht x); [split |]; auto.
  - intros u _. apply Hv'.
  - exact Hbf'.
  - intros k. rewrite Hf', Hf. split.
    + intros [[[i [Hi [Hne E]]] | [j [[] _]]] | Hj]; [left; exists i; auto | right; exact Hj].
    + intros [[i [[E | Hi] [Hne E']]] | Hj]; [subst; contradiction | | right; exact Hj].
      left. left. exists i. auto.
Qed.

(** ** The whole run *)

(** The invariant between a caller state (nested reading) and an inlined
    state: before the call fires, [sim] with no body value; after, [sim]
    with the values of a maximal body run that defined every body input
    and output. *)
Definition inv (s s' : @state V) : Prop :=
  (~ In c (fired s) /\ sim s s' nothing []) \/
  (In c (fired s) /\ exists sb, maximal fb sb /\ (forall u, In u fin \/ In u fout -> defined sb u) /\
                                sim s s' (vals sb) (fired sb)).

Lemma sim_run : forall n s s1, steps nested_interp g n s s1 -> origin_inv g s ->
  forall s', inv s s' -> exists n' s1', steps inline_interp inline_graph n' s' s1' /\ inv s1 s1'.
Proof.
  intros n s s1 R. induction R as [s | n s t s1 [i [Hi ->]] R IH]; intros Hinv s' Hs.
  - exists 0, s'. split; [constructor | exact Hs].
  - assert (Hinv' : origin_inv g (fire nested_interp g s i))
      by (apply (origin_inv_step nested_interp g s); [exists i; auto | exact Hinv]).
    pose proof Hi as [o [Ho [Hn _]]].
    assert (Hfi : fired (fire nested_interp g s i) = i :: fired s) by (apply fire_fired with (o := o); exact Ho).
    destruct (Nat.eq_dec i c) as [-> | Hne].
    + destruct Hs as [[Hnc Hsim] | [Hc _]]; [| contradiction].
      destruct (call_block s s' Hnc Hinv Hsim Hi) as [n1 [s3 [R1 [sb [Mb [Hd Hsim']]]]]].
      destruct (IH Hinv' s3) as [n2 [s4 [R2 Hs4]]].
      { right. split; [rewrite Hfi; left; reflexivity |]. exists sb. auto. }
      exists (n1 + n2), s4. split; [apply (steps_trans inline_interp inline_graph n1 n2 s' s3 s4); auto | exact Hs4].
    + assert (Hcf : In c (fired (fire nested_interp g s i)) <-> In c (fired s)).
      { rewrite Hfi. simpl. split; [intros [E | H]; [congruence | exact H] | intros H; right; exact H]. }
      destruct Hs as [[Hnc Hsim] | [Hc [sb [Mb [Hd Hsim]]]]].
      * destruct (sim_caller_step s s' nothing [] i Hsim Hne Hi) as [He Hsim'].
        destruct (IH Hinv' (fire inline_interp inline_graph s' (pos i))) as [n2 [s4 [R2 Hs4]]].
        { left. split; [rewrite Hcf; exact Hnc | exact Hsim']. }
        exists (S n2), s4. split; [econstructor; [exists (pos i); split; eauto | exact R2] | exact Hs4].
      * destruct (sim_caller_step s s' (vals sb) (fired sb) i Hsim Hne Hi) as [He Hsim'].
        destruct (IH Hinv' (fire inline_interp inline_graph s' (pos i))) as [n2 [s4 [R2 Hs4]]].
        { right. split; [rewrite Hcf; exact Hc | exists sb; auto]. }
        exists (S n2), s4. split; [econstructor; [exists (pos i); split; eauto | exact R2] | exact Hs4].
Qed.

Lemma inv_maximal : forall s s', In c (fired s) -> inv s s' -> maximal g s -> maximal inline_graph s'.
Proof.
  intros s s' Hc [[Hnc _] | [_ [sb [Mb [Hd [Hv [Hb [Hbf Hf]]]]]]]] Hm; [contradiction |].
  intros k [o [Ho [Hn Hr]]].
  destruct (nth_inline_inv k o Ho) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]].
  - apply (Hm i). exists o. repeat split; auto.
    + intros Hin. apply Hn. apply Hf. left. exists i. auto.
    + intros n Hin. unfold defined. rewrite <- Hv; [apply Hr; exact Hin |].
      apply g_tensor_nonfresh. apply (required_g_tensor i o); auto.
  - apply (Mb j). exists ob. repeat split; auto.
    + intros Hin. apply Hn. apply Hf. right. exists j. auto.
    + intros u Hu. destruct (In_dec Nat.eq_dec u fin) as [Hi | Hi]; [apply Hd; left; exact Hi |].
      destruct (In_dec Nat.eq_dec u fout) as [Ho2 | Ho2]; [apply Hd; right; exact Ho2 |].
      unfold defined. rewrite <- Hb by (split; auto). apply Hr. rewrite required_ren. apply in_map. exact Hu.
Qed.

(** ** GRAPH-C1 for the inlined graph *)

Lemma body_write_caller_free : forall i o j ob u, i <> c ->
  nth_error (g_ops g) i = Some o -> nth_error (g_ops fb) j = Some ob -> In (Some u) (op_outputs ob) ->
  ~ In (Some (ren u)) (op_outputs o).
Proof.
  intros i o j ob u Hne Ho Hob Hu Hin.
  assert (Hfin := body_out_not_in j ob u Hob Hu).
  destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
  - apply Hne. destruct H_c1g as [Hs _]. apply (Hs i c o call_op (ren u)); auto. apply call_outputs_in. exact Hout.
  - apply (H_fresh u); [split; auto |]. apply (output_g_tensor i o); auto.
Qed.

Lemma body_write_not_source : forall j ob u,
  nth_error (g_ops fb) j = Some ob -> In (Some u) (op_outputs ob) -> ~ source g (ren u).
Proof.
  intros j ob u Hob Hu Hsrc.
  assert (Hfin := body_out_not_in j ob u Hob Hu).
  destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
  - destruct H_c1g as [_ Hs]. apply (Hs c call_op (ren u) H_call); auto. apply call_outputs_in. exact Hout.
  - apply (H_fresh u); [split; auto |]. left. exact Hsrc.
Qed.

Lemma inline_c1 : c1_assign inline_graph.
Proof.
  split.
  - intros k k' ok ok' t Hk Hk' Ht Ht'.
    destruct (nth_inline_inv k ok Hk) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]];
    destruct (nth_inline_inv k' ok' Hk') as [[i' [Hne' [-> Hoi']]] | [j' [ob' [-> [Hj' [Hob' ->]]]]]].
    + f_equal. destruct H_c1g as [Hs _]. apply (Hs i i' ok ok' t); auto.
    + exfalso. destruct (in_ren_outs _ t Ht') as [u [Hu ->]].
      apply (body_write_caller_free i ok j' ob' u); auto.
    + exfalso. destruct (in_ren_outs _ t Ht) as [u [Hu ->]].
      apply (body_write_caller_free i' ok' j ob u); auto.
    + destruct (in_ren_outs _ t Ht) as [u [Hu ->]]. destruct (in_ren_outs _ _ Ht') as [u' [Hu' E]].
      assert (u = u') as <- by (apply H_inj; [apply (body_out_not_in j' ob' u'); auto | exact E]).
      f_equal. destruct H_c1b as [Hs _]. apply (Hs j j' ob ob' u); auto.
  - intros k o t Hk Ht Hsrc. change (source g t) in Hsrc.
    destruct (nth_inline_inv k o Hk) as [[i [Hne [-> Hoi]]] | [j [ob [-> [Hj [Hob ->]]]]]].
    + destruct H_c1g as [_ Hs]. apply (Hs i o t); auto.
    + destruct (in_ren_outs _ t Ht) as [u [Hu ->]]. apply (body_write_not_source j ob u); auto.
Qed.

(** ** The two readings agree *)

Lemma inline_sim_main : forall (inp init outer : nat -> option V) s1 s2,
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run inline_interp inline_graph (initial_state inline_graph inp init outer) s2 ->
  (forall t, nonfresh t -> vals s2 t = vals s1 t) /\ outputs_of inline_graph s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 [[n R] M] Hc R2.
  assert (H0 : inv (initial_state g inp init outer) (initial_state inline_graph inp init outer)).
  { left. split; [intros [] |]. split; [| split; [| split]].
    - intros t _. reflexivity.
    - intros u Hu. unfold nothing. simpl.
      destruct (initial_vals inline_graph inp init outer (ren u)) eqn:E; [exfalso | reflexivity].
      apply (H_fresh u Hu). left. change (source inline_graph (ren u)).
      apply (initial_vals_source inline_graph inp init outer). rewrite E. discriminate.
    - intros j [].
    - intros k. simpl. split; [intros [] | intros [[i [[] _]] | [j [[] _]]]]. }
  destruct (sim_run n _ s1 R (origin_inv_initial g inp init outer) _ H0) as [n' [s1' [R' Hs1']]].
  assert (M' := inv_maximal s1 s1' Hc Hs1' M).
  destruct (order_independence inline_interp inline_graph inp init outer s1' s2 inline_c1
              (conj (ex_intro _ n' R') M') R2) as [Ev _].
  assert (Hv : forall t, nonfresh t -> vals s2 t = vals s1 t).
  { intros t Ht. rewrite <- Ev.
    destruct Hs1' as [[Hnc _] | [_ [sb [_ [_ [Hv _]]]]]]; [contradiction | apply Hv; exact Ht]. }
  split; [exact Hv |].
  unfold outputs_of. simpl. apply map_ext_in. intros t Ht. apply Hv.
  apply g_tensor_nonfresh. right. left. exact Ht.
Qed.

End Proofs.

(** ** The theorems *)

(** GRAPH-C1's at-most-one-assignment half holds for the inlined graph when
    it holds for the caller and for the body, under the renaming premises
    of [inline_matches_nested] (no body input or initial value is needed:
    the proof only uses the call's shape, injectivity and freshness). *)
Theorem inline_c1_assign :
  nth_error (g_ops g) c = Some call_op ->
  (forall u x, ~ In x fin -> ren u = ren x -> u = x) ->
  (forall u, internal u -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  c1_assign inline_graph.
Proof. intros H1 H2 H3 H4 H5. apply inline_c1; assumption. Qed.

(** Running a call as a nested graph gives the result of inlining it.

    The caller [g] holds at position [c] a call of the function whose body
    is the flat graph [fb] (inputs [fin], outputs [fout]). Nested reading:
    [nested_interp] interprets the call by running the body with
    [run_fuel] from its inputs bound to the call's argument values, and
    returns the body's output values ([runner_correct]: under GRAPH-C1 for
    the body, [run_fuel] ends where every maximal run of the body ends);
    the caller's other operations are interpreted by [it], the body's by
    [ib]. Inlined reading:
    [inline_graph], the caller with the body's operations renamed by [ren]
    in place of the call, interpreted by [inline_interp].

    Premises, each a fact the loader or a checked rule gives:
    - the call names its actual tensors through [ren]: actual input [k] is
      [ren (fin k)], actual output [k] is [ren (fout k)], with no omitted
      entry and no implicit input (a function has no captures);
    - the body has no initializers and no captures (ONNX functions have
      neither) and no output is also an input;
    - [ren] is injective on every name the body may write (a name that is
      not an input): two body names with one image are equal, and a
      written name's image is not an input's image;
    - [ren] gives every internal body name (neither input nor output) a
      fresh name: not a tensor the caller mentions ([g_tensor]);
    - GRAPH-C1's at-most-one-assignment half for the caller and for the
      body ([c1_assign]);
    - the body's operators give one value per output ([arity_ok]) and the
      body satisfies GRAPH-C3 (static form, [c3_fixpoint]) whenever its
      inputs have values, so a run of the body defines every output;
    - the call fires in the caller's run ([In c (fired s1)]). This is a
      fact of the run, not of the rules: the nested call waits for all of
      its inputs while inlined operations may fire on some of them, and
      [strict_call_needed] shows the conclusion fails without it.

    Conclusion: for every maximal run [s1] of the caller under the nested
    reading and every maximal run [s2] of the inlined graph, both from the
    same graph inputs, initializers and captured values, [s2] and [s1]
    give the same value to every name that is not a fresh name
    ([nonfresh]), so the graph outputs are equal. *)
Theorem inline_matches_nested : forall (inp init outer : nat -> option V) s1 s2,
  nth_error (g_ops g) c = Some call_op ->
  g_inits fb = [] -> g_captures fb = [] ->
  (forall u, In u fin -> ~ In u fout) ->
  (forall u x, ~ In x fin -> ren u = ren x -> u = x) ->
  (forall u, internal u -> ~ g_tensor (ren u)) ->
  c1_assign g -> c1_assign fb ->
  arity_ok ib fb ->
  (forall inp, (forall x, In x fin -> inp x <> None) -> c3_fixpoint fb (initial_state fb inp nothing nothing)) ->
  maximal_run nested_interp g (initial_state g inp init outer) s1 -> In c (fired s1) ->
  maximal_run inline_interp inline_graph (initial_state inline_graph inp init outer) s2 ->
  (forall t, nonfresh t -> vals s2 t = vals s1 t) /\ outputs_of inline_graph s2 = outputs_of g s1.
Proof.
  intros inp init outer s1 s2 H1 H2 H3 H4 H5 H6 H7 H8 H9 H10 R1 Hc R2.
  eapply inline_sim_main; eassumption.
Qed.

End Inline.

(** ** The premises can hold: a concrete call *)

(** A caller with two operations, [1 := f(0)] (the call, at position 0)
    and [2 := double(1)], and a body [f] with two operations,
    [5 := inc0(0)] and [1 := inc1(5)]; the renaming keeps the interface
    names [0] and [1] and sends every other body name [u] to [u + 10]. *)
Definition ex_g : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 1]; mkOp [Some 1] [] [Some 2]] [2].
Definition ex_fb : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 5]; mkOp [Some 5] [] [Some 1]] [1].
Definition ex_ren (u : nat) : nat := if u =? 0 then 0 else if u =? 1 then 1 else u + 10.
Definition ex_it (i : nat) (a b : list (option nat)) : list nat :=
  [match a with Some x :: _ => 2 * x | _ => 0 end].
Definition ex_ib (j : nat) (a b : list (option nat)) : list nat :=
  [match a with Some x :: _ => x + 1 + j | _ => 0 end].
Definition ex_inp (t : nat) : option nat := if t =? 0 then Some 3 else None.

Lemma ex_g_tensor : forall t, g_tensor ex_g t -> t <= 2.
Proof.
  intros t [[H | [H | H]] | [H | [i [o [Ho [H | H]]]]]]; simpl in *; try tauto; try lia.
  - destruct i as [| [| i]]; simpl in Ho; [injection Ho as <- | injection Ho as <- | destruct i; discriminate];
      simpl in H; lia.
  - destruct i as [| [| i]]; simpl in Ho; [injection Ho as <- | injection Ho as <- | destruct i; discriminate];
      simpl in H; destruct H as [H | []]; injection H as <-; lia.
Qed.

Lemma ex_c1 : forall (gr : graph),
  (forall i j oi oj t, nth_error (g_ops gr) i = Some oi -> nth_error (g_ops gr) j = Some oj ->
     In (Some t) (op_outputs oi) -> In (Some t) (op_outputs oj) -> i = j) ->
  (forall i o t, nth_error (g_ops gr) i = Some o -> In (Some t) (op_outputs o) -> ~ source gr t) ->
  c1_assign gr.
Proof. intros gr H1 H2. split; [exact H1 | exact H2]. Qed.

Lemma ex_nth2 : forall (A : Type) (a b : A) i o, nth_error [a; b] i = Some o -> (i = 0 /\ o = a) \/ (i = 1 /\ o = b).
Proof.
  intros A a b [| [| i]] o H; simpl in H; [injection H as <- | injection H as <- | destruct i; discriminate]; auto.
Qed.

(** Non-vacuity of [inline_matches_nested]: on the call above, every one
    of its premises holds (each is discharged in the proof) and the call
    fires, so the theorem gives the inlined graph's outputs, whatever
    maximal run computes them: [2 * ((3 + 1) + 2) = 12]. *)
Theorem inline_premises_satisfiable : forall s2,
  maximal_run (inline_interp ex_it ex_ib 0 ex_fb) (inline_graph ex_g 0 ex_fb ex_ren)
    (initial_state (inline_graph ex_g 0 ex_fb ex_ren) ex_inp nothing nothing) s2 ->
  outputs_of (inline_graph ex_g 0 ex_fb ex_ren) s2 = [Some 12].
Proof.
  intros s2 R2.
  set (s1 := run_fuel (nested_interp ex_it ex_ib 0 0 ex_fb) ex_g 2 (initial_state ex_g ex_inp nothing nothing)).
  assert (Hs1 : outputs_of ex_g s1 = [Some 12] /\ In 0 (fired s1)) by (vm_compute; auto).
  destruct Hs1 as [Hout Hc]. rewrite <- Hout.
  refine (proj2 (inline_matches_nested ex_it ex_ib 0 ex_g 0 ex_fb ex_ren ex_inp nothing nothing s1 s2
                   _ _ _ _ _ _ _ _ _ _ _ Hc R2)).
  - reflexivity.
  - reflexivity.
  - reflexivity.
  - simpl. intros u [<- | []] [H | []]. discriminate.
  - intros u x Hx. simpl in Hx. unfold ex_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); intros; try lia; tauto.
  - intros u [Hi Ho] Ht. apply ex_g_tensor in Ht. simpl in Hi, Ho. unfold ex_ren in Ht.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); try tauto; lia.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - intros i o a b Hi. simpl in Hi. apply ex_nth2 in Hi. destruct Hi as [[-> ->] | [-> ->]]; reflexivity.
  - intros inp Hinp t [<- | []].
    assert (H0 : derivable ex_fb (initial_state ex_fb inp nothing nothing) 0).
    { apply der_init. unfold defined. simpl. unfold initial_vals. simpl.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    assert (H5 : derivable ex_fb (initial_state ex_fb inp nothing nothing) 5).
    { apply (der_op _ _ 0 (mkOp [Some 0] [] [Some 5])); [reflexivity | | left; reflexivity].
      intros n [<- | []]. exact H0. }
    apply (der_op _ _ 1 (mkOp [Some 5] [] [Some 1])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H5.
  - split; [apply run_fuel_steps | apply run_fuel_maximal; rewrite unfired_initial; auto].
Qed.

(** ** The call must fire *)

(** A caller whose only operation is a call [1 := f(0, 3)], where nothing
    ever defines [3], and a body [f(0, 1)] whose only operation, [2 :=
    inc0(0)], reads only its first input; the renaming sends [0, 1, 2] to
    [0, 3, 1] and every other name [u] to [u + 10]. *)
Definition ex2_g : graph := mkGraph [0] [] [] [mkOp [Some 0; Some 3] [] [Some 1]] [1].
Definition ex2_fb : graph := mkGraph [0; 1] [] [] [mkOp [Some 0] [] [Some 2]] [2].
Definition ex2_ren (u : nat) : nat :=
  if u =? 0 then 0 else if u =? 1 then 3 else if u =? 2 then 1 else u + 10.

Lemma ex_nth1 : forall (A : Type) (a : A) i o, nth_error [a] i = Some o -> i = 0 /\ o = a.
Proof. intros A a [| i] o H; simpl in H; [injection H as <-; auto | destruct i; discriminate]. Qed.

(** The premise that the call fires cannot be dropped from
    [inline_matches_nested]: on the graphs above every other premise
    holds, yet in every maximal run of the caller the call never fires
    (its input [3] never has a value) and the graph output stays
    undefined, while in every maximal run of the inlined graph the body's
    operation fires on input [0] alone and defines the output. *)
Theorem strict_call_needed :
  nth_error (g_ops ex2_g) 0 = Some (call_op ex2_fb ex2_ren) /\
  g_inits ex2_fb = [] /\ g_captures ex2_fb = [] /\
  (forall u, In u (g_inputs ex2_fb) -> ~ In u (g_outputs ex2_fb)) /\
  (forall u x, ~ In x (g_inputs ex2_fb) -> ex2_ren u = ex2_ren x -> u = x) /\
  (forall u, internal ex2_fb u -> ~ g_tensor ex2_g (ex2_ren u)) /\
  c1_assign ex2_g /\ c1_assign ex2_fb /\ arity_ok ex_ib ex2_fb /\
  (forall inp : nat -> option nat, (forall x, In x (g_inputs ex2_fb) -> inp x <> None) ->
     c3_fixpoint ex2_fb (initial_state ex2_fb inp nothing nothing)) /\
  forall s1 s2,
    maximal_run (nested_interp ex_it ex_ib 0 0 ex2_fb) ex2_g (initial_state ex2_g ex_inp nothing nothing) s1 ->
    maximal_run (inline_interp ex_it ex_ib 0 ex2_fb) (inline_graph ex2_g 0 ex2_fb ex2_ren)
      (initial_state (inline_graph ex2_g 0 ex2_fb ex2_ren) ex_inp nothing nothing) s2 ->
    ~ In 0 (fired s1) /\ outputs_of ex2_g s1 = [None] /\ outputs_of (inline_graph ex2_g 0 ex2_fb ex2_ren) s2 = [Some 4].
Proof.
  assert (Hc1g : c1_assign ex2_g).
  { split.
    - intros i j oi oj t Hi Hj _ _. apply ex_nth1 in Hi, Hj. lia.
    - intros i o t Hi Ht Hs. apply ex_nth1 in Hi. destruct Hi as [-> ->].
      simpl in Ht. destruct Ht as [Ht | []]. injection Ht as <-. unfold source in Hs. simpl in Hs.
      intuition discriminate. }
  assert (Hc1b : c1_assign ex2_fb).
  { split.
    - intros i j oi oj t Hi Hj _ _. apply ex_nth1 in Hi, Hj. lia.
    - intros i o t Hi Ht Hs. apply ex_nth1 in Hi. destruct Hi as [-> ->].
      simpl in Ht. destruct Ht as [Ht | []]. injection Ht as <-. unfold source in Hs. simpl in Hs.
      intuition discriminate. }
  assert (Hcall : nth_error (g_ops ex2_g) 0 = Some (call_op ex2_fb ex2_ren)) by reflexivity.
  assert (Hinj : forall u x, ~ In x (g_inputs ex2_fb) -> ex2_ren u = ex2_ren x -> u = x).
  { intros u x Hx. simpl in Hx. unfold ex2_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); destruct (Nat.eqb_spec u 2);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); destruct (Nat.eqb_spec x 2);
      intros; subst; lia. }
  assert (Hfresh : forall u, internal ex2_fb u -> ~ g_tensor ex2_g (ex2_ren u)).
  { intros u [Hi Ho] Ht. simpl in Hi, Ho. unfold ex2_ren in Ht.
    destruct (Nat.eqb_spec u 0); [subst; tauto |]. destruct (Nat.eqb_spec u 1); [subst; tauto |].
    destruct (Nat.eqb_spec u 2); [subst; tauto |].
    destruct Ht as [[H | [H | H]] | [H | [i [o [Hio [H | H]]]]]]; simpl in H; try lia.
    - apply ex_nth1 in Hio. destruct Hio as [-> ->]. simpl in H. lia.
    - apply ex_nth1 in Hio. destruct Hio as [-> ->]. simpl in H.
      destruct H as [H | []]. injection H as H. lia. }
  assert (Hc1' : c1_assign (inline_graph ex2_g 0 ex2_fb ex2_ren))
    by (eapply inline_c1_assign; eauto).
  split; [exact Hcall |]. split; [reflexivity |]. split; [reflexivity |].
  split; [simpl; intros u [<- | [<- | []]] [H | []]; discriminate |].
  split; [exact Hinj |]. split; [exact Hfresh |]. split; [exact Hc1g |]. split; [exact Hc1b |].
  split; [intros i o a b Hi; apply ex_nth1 in Hi; destruct Hi as [-> ->]; reflexivity |].
  split.
  { intros inp Hinp t [<- | []].
    assert (H0 : derivable ex2_fb (initial_state ex2_fb inp nothing nothing) 0).
    { apply der_init. unfold defined. simpl. unfold initial_vals. simpl.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    apply (der_op _ _ 0 (mkOp [Some 0] [] [Some 2])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H0. }
  intros s1 s2 R1 R2.
  destruct (runner_correct _ ex2_g ex_inp nothing nothing s1 Hc1g R1) as [E1 F1].
  destruct (runner_correct _ _ ex_inp nothing nothing s2 Hc1' R2) as [E2 F2].
  split; [| split].
  - rewrite <- F1. vm_compute. tauto.
  - unfold outputs_of. simpl. rewrite <- E1. vm_compute. reflexivity.
  - unfold outputs_of. simpl. rewrite <- E2. vm_compute. reflexivity.
Qed.

Print Assumptions inline_c1_assign.
Print Assumptions inline_matches_nested.
Print Assumptions inline_premises_satisfiable.
Print Assumptions strict_call_needed.
